import { DecimalString, Id, RecipientAmount, Timestamp } from './common';

export const Address = {
  $id: 'Address',
  type: 'object',
  required: ['id', 'walletId', 'chain', 'network', 'kind', 'address', 'destinationTag', 'index', 'path', 'label', 'createdAt'],
  additionalProperties: false,
  properties: {
    id: Id,
    walletId: Id,
    chain: { type: 'string' },
    network: { type: 'string' },
    kind: {
      type: 'string',
      enum: ['deposit', 'account'],
      description:
        "`deposit`: an address to hand out. `account`: on account-tag chains (XRP) the wallet's bare account; payments to it without a tag, or with a tag the service never issued, are recorded against it",
    },
    address: { type: 'string', description: 'on account-tag chains a deposit address reads `account:tag`' },
    destinationTag: {
      type: ['integer', 'null'],
      minimum: 0,
      maximum: 4294967295,
      description: 'account-tag chains: the destination tag the sender must set; null elsewhere and on the account row',
    },
    index: {
      type: 'integer',
      minimum: 0,
      description:
        'the derivation index (key-per-address), or the ordinal of a tagged address (account-tag: every tag shares the account key at `path`)',
    },
    path: { type: 'string' },
    label: { type: ['string', 'null'] },
    createdAt: Timestamp,
    keyHeldIn: {
      type: 'string',
      enum: ['token', 'kms'],
      description:
        "present when the key is held outside walletd and signs there: `token`, generated inside the PKCS#11 token (`path` is `pkcs11:<label>`); `kms`, an AWS KMS key (`path` is `awskms:<key id>`). Absent: derived from the wallet's mnemonic",
    },
  },
} as const;

export const AddressList = {
  $id: 'AddressList',
  type: 'object',
  required: ['addresses'],
  additionalProperties: false,
  properties: { addresses: { type: 'array', items: { $ref: 'Address' } } },
} as const;

export const AddressCreateRequest = {
  $id: 'AddressCreateRequest',
  type: 'object',
  additionalProperties: false,
  properties: {
    label: { type: 'string', maxLength: 100 },
    keyHeldIn: {
      type: 'string',
      enum: ['wallet', 'token', 'kms'],
      default: 'wallet',
      description:
        "`token`: generate the address's key pair inside the PKCS#11 token (the master key's, `masterKey.pkcs11`) and sign there, e.g. a treasury address. `kms`: the address of the AWS KMS key `kmsKeyId` (config `signers.awsKms`), which signs there. Both on the chains whose plugin declares keyHeldInToken (docs/operate/keys-and-hsms.md lists them: EVM, Tron, Solana, TON and the Bitcoin family); 422 elsewhere, without the token or KMS configured, or for a KMS key of another curve than the chain's",
    },
    kmsKeyId: {
      type: 'string',
      minLength: 1,
      maxLength: 2048,
      description:
        'with keyHeldIn `kms` (and only then): the KMS key id, ARN or alias; an asymmetric SIGN_VERIFY key, ECC_SECG_P256K1 for secp256k1 chains, ECC_NIST_EDWARDS25519 for Ed25519 ones. Only the id is stored',
    },
  },
} as const;

export const Balances = {
  $id: 'Balances',
  type: 'object',
  required: ['walletId', 'balances'],
  additionalProperties: false,
  properties: {
    walletId: Id,
    balances: {
      type: 'array',
      items: {
        type: 'object',
        required: ['asset', 'confirmed', 'pending', 'reserved', 'available'],
        additionalProperties: false,
        properties: {
          asset: { $ref: 'Asset' },
          confirmed: {
            ...DecimalString,
            description: 'confirmed deposits minus confirmed withdrawals and every fee paid on chain',
          },
          pending: { ...DecimalString, description: 'detected deposits not yet final (never spendable)' },
          reserved: {
            ...DecimalString,
            description: 'held by in-flight withdrawals (prepared, signed, broadcast): amounts, and fee caps on the native asset',
          },
          available: { ...DecimalString, description: 'what a new withdrawal can take: confirmed minus reserved, never below 0' },
          onchain: { ...DecimalString, description: "with ?onchain=true: what the node reports across the wallet's addresses" },
          onchainSpendable: {
            ...DecimalString,
            description:
              "with ?onchain=true: the part of `onchain` that can be sent, leaving the chain's minimum in place (XRP reserve, Polkadot existential deposit, Solana rent); equal to `onchain` on chains without one",
          },
        },
      },
    },
  },
} as const;

export const Transaction = {
  $id: 'Transaction',
  type: 'object',
  description: 'A deposit (direction incoming) or a withdrawal (direction outgoing, from signing on). Unique by (kind, id); newest first.',
  required: [
    'id',
    'kind',
    'withdrawalId',
    'walletId',
    'addressId',
    'chain',
    'network',
    'txHash',
    'eventIndex',
    'direction',
    'eventType',
    'asset',
    'amount',
    'fromAddress',
    'toAddress',
    'blockNumber',
    'status',
    'confirmations',
    'reason',
    'createdAt',
    'updatedAt',
  ],
  additionalProperties: false,
  properties: {
    id: Id,
    kind: { enum: ['deposit', 'withdrawal'] },
    withdrawalId: { type: ['integer', 'null'], description: 'withdrawals: GET /v1/withdrawals/{id} has its fee and history' },
    walletId: Id,
    addressId: { type: ['integer', 'null'], description: 'deposits: the receiving address; null for withdrawals' },
    chain: { type: 'string' },
    network: { type: 'string' },
    txHash: { type: 'string' },
    eventIndex: {
      type: 'integer',
      minimum: 0,
      description:
        'the transfer within its transaction, stable if it is mined again (EVM: 0 native value, 1 + log position token logs, 2^30 + call-frame position internal transfers)',
    },
    direction: { enum: ['incoming', 'outgoing'] },
    eventType: {
      type: 'string',
      description:
        'deposits: native_transfer, erc20_transfer, internal_transfer (EVM native coins sent by a contract), …; withdrawals: withdrawal',
    },
    asset: { $ref: 'Asset' },
    amount: DecimalString,
    fromAddress: { type: ['string', 'null'] },
    toAddress: { type: ['string', 'null'], description: 'null for a withdrawal to several recipients (see outputs)' },
    outputs: { type: 'array', items: RecipientAmount, description: 'withdrawals only: every recipient' },
    blockNumber: { type: ['integer', 'null'] },
    status: {
      enum: ['pending', 'confirmed', 'rejected'],
      description: 'withdrawals: signed or broadcast read pending (the withdrawal itself has the exact state)',
    },
    confirmations: { type: 'integer', minimum: 0 },
    reason: { type: ['string', 'null'] },
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
} as const;

export const TransactionList = {
  $id: 'TransactionList',
  type: 'object',
  required: ['transactions', 'next'],
  additionalProperties: false,
  properties: { transactions: { type: 'array', items: { $ref: 'Transaction' } }, next: { type: ['string', 'null'] } },
} as const;
