import { DecimalString, Id, Timestamp } from './common';

/** docs/guide/sweeps-and-gas.md: a wallet's rule moving each deposit address's funds above a threshold to one destination. */

const trigger = {
  enum: ['schedule', 'deposit'],
  description: 'schedule: every intervalSeconds; deposit: at the next runner tick after a deposit to an address is confirmed',
} as const;
const intervalSeconds = {
  type: 'integer',
  minimum: 60,
  maximum: 2_592_000,
  description: 'with trigger schedule: the run window in seconds (60 s to 30 days); absent with trigger deposit',
} as const;
const destination = {
  type: 'string',
  minLength: 1,
  maxLength: 200,
  description: 'where the funds go: an address of the same wallet (its treasury address) or an external one the destination policies allow',
} as const;
const threshold = {
  ...DecimalString,
  description: 'an address is swept once its available balance reaches this (display units, > 0)',
} as const;
const minLeft = { ...DecimalString, description: 'left on each swept address (display units); "0" by default' } as const;
const gasDailyCap = {
  oneOf: [{ ...DecimalString }, { type: 'null' }],
  description:
    "token rules on EVM chains, Tron, TON, Polkadot and Solana: what this rule's gas top-ups (amounts and fees), or on Solana the sweep fees the station pays as fee payer, may take from the wallet's gas station in 24 hours, in the native coin (display units); null or absent: no cap but the station's balance",
} as const;

const feeRate = {
  type: ['integer', 'null'],
  minimum: 1,
  maximum: 100_000_000,
  description:
    "UTXO rules only (a consolidation): base units per virtual byte (satoshis per vbyte or the chain's own unit), from the network's floor to 500 times it; null or absent: the node's 6-block estimate, capped at 500 times the floor",
} as const;

export const SweepRule = {
  $id: 'SweepRule',
  type: 'object',
  required: [
    'id',
    'walletId',
    'asset',
    'destination',
    'threshold',
    'minLeft',
    'trigger',
    'intervalSeconds',
    'enabled',
    'gasDailyCap',
    'feeRate',
    'lastRunAt',
    'lastError',
    'createdAt',
    'updatedAt',
  ],
  additionalProperties: false,
  properties: {
    id: Id,
    walletId: Id,
    asset: { $ref: 'Asset' },
    destination: { type: 'string' },
    threshold: DecimalString,
    minLeft: DecimalString,
    trigger,
    intervalSeconds: { type: ['integer', 'null'] },
    enabled: { type: 'boolean' },
    gasDailyCap: { oneOf: [DecimalString, { type: 'null' }] },
    feeRate: { type: ['integer', 'null'] },
    lastRunAt: { type: ['string', 'null'], format: 'date-time', description: 'when the runner last went over this rule' },
    lastError: {
      type: ['string', 'null'],
      description: 'why the last run could not sweep an address (the address named); null when every one went',
    },
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
} as const;

export const SweepRuleList = {
  $id: 'SweepRuleList',
  type: 'object',
  required: ['rules'],
  additionalProperties: false,
  properties: { rules: { type: 'array', items: { $ref: 'SweepRule' } } },
} as const;

export const SweepRuleCreateRequest = {
  $id: 'SweepRuleCreateRequest',
  type: 'object',
  required: ['asset', 'destination', 'threshold', 'trigger'],
  additionalProperties: false,
  properties: {
    asset: { type: 'string', minLength: 1, maxLength: 200, description: 'asset key or symbol, e.g. "ETH"' },
    destination,
    threshold,
    minLeft,
    trigger,
    intervalSeconds,
    enabled: { type: 'boolean' },
    gasDailyCap,
    feeRate,
  },
} as const;

export const SweepRuleUpdateRequest = {
  $id: 'SweepRuleUpdateRequest',
  type: 'object',
  minProperties: 1,
  additionalProperties: false,
  properties: { destination, threshold, minLeft, trigger, intervalSeconds, enabled: { type: 'boolean' }, gasDailyCap, feeRate },
} as const;

/** Issue 45 §4: the wallet's gas station made with its key in AWS KMS (docs/operate/keys-and-hsms.md). */
export const GasStationCreateRequest = {
  $id: 'GasStationCreateRequest',
  type: 'object',
  required: ['keyHeldIn', 'kmsKeyId'],
  additionalProperties: false,
  properties: {
    keyHeldIn: { enum: ['kms'], description: "where the station's key is: an AWS KMS key (config `signers.awsKms`)" },
    kmsKeyId: {
      type: 'string',
      minLength: 1,
      maxLength: 2048,
      description:
        "the KMS key id, ARN or alias: an asymmetric SIGN_VERIFY key of the chain's curve (ECC_SECG_P256K1 for EVM chains and Tron, ECC_NIST_EDWARDS25519 for Solana and TON); only the id is stored",
    },
  },
} as const;

/** docs/guide/sweeps-and-gas.md, gas station: the wallet's funding address for token sweeps (EVM, Tron, TON and Polkadot top-ups, Solana fee payer). */
export const GasStation = {
  $id: 'GasStation',
  type: 'object',
  required: [
    'walletId',
    'chain',
    'network',
    'address',
    'path',
    'keyHeldIn',
    'asset',
    'confirmed',
    'reserved',
    'available',
    'marginPercent',
    'spentLast24h',
    'estimate',
  ],
  additionalProperties: false,
  properties: {
    walletId: Id,
    chain: { type: 'string' },
    network: { type: 'string' },
    address: { type: 'string', description: 'fund this address with the native coin; it pays every gas top-up of the wallet' },
    path: {
      type: 'string',
      description:
        "its derivation path from the wallet's mnemonic, `pkcs11:<label>` for a key held in the token, or `awskms:<key id>` for an AWS KMS key",
    },
    keyHeldIn: {
      enum: ['wallet', 'token', 'kms'],
      description:
        "where its key is: derived from the wallet's mnemonic, generated inside the PKCS#11 token and signing there (masterKey.gasStationsInToken), or an AWS KMS key signing there (made with POST, keyHeldIn kms)",
    },
    asset: { $ref: 'Asset' },
    confirmed: { ...DecimalString, description: 'credited: confirmed deposits less confirmed top-ups and their fees' },
    reserved: { ...DecimalString, description: 'held by top-ups in flight (amounts and fee caps)' },
    available: { ...DecimalString, description: 'confirmed less reserved: what the next top-ups can take' },
    marginPercent: { type: 'integer', description: 'added to the quoted fee of the sweep a top-up pays (0 on Solana: no top-up)' },
    spentLast24h: {
      ...DecimalString,
      description: 'what top-ups, and sweep fees it paid as fee payer (Solana), took or hold in the last 24 hours (every rule)',
    },
    estimate: {
      description:
        "one top-up at the current fee, for the wallet's first enabled token rule; null while no deposit address holds its token",
      oneOf: [
        { type: 'null' },
        {
          type: 'object',
          required: ['ruleId', 'token', 'sweepFee', 'topUp', 'topUpFee', 'runway'],
          additionalProperties: false,
          properties: {
            ruleId: Id,
            token: { $ref: 'Asset' },
            sweepFee: { ...DecimalString, description: "the token sweep's fee cap as the node quotes it now" },
            topUp: { ...DecimalString, description: 'what the station sends: sweepFee plus marginPercent' },
            topUpFee: { ...DecimalString, description: "the top-up transaction's own fee cap" },
            runway: {
              type: 'integer',
              minimum: 0,
              description:
                'how many top-ups available pays: available / (topUp + topUpFee), rounded down; on Solana how many sweep fees: available / sweepFee',
            },
          },
        },
      ],
    },
  },
} as const;
