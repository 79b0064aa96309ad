import { AmountOfAsset, DecimalString, Id, RecipientAmount, Timestamp } from './common';
import { WithdrawalAttempts } from './withdrawalReplace';

const Nullable = (s: Record<string, unknown>) => ({ oneOf: [s, { type: 'null' }] });
const Memo = {
  type: 'string',
  maxLength: 200,
  description: 'for chains whose capabilities include memo (TON comment, Solana memo); refused (400) on the others',
} as const;
const DestinationTag = {
  type: 'integer',
  minimum: 0,
  maximum: 4294967295,
  description: 'for chains whose capabilities include destinationTag (XRP); refused (400) on the others',
} as const;

/** A recipient in a request: bounded lengths (responses use the plain RecipientAmount). */
const Recipient = {
  type: 'object',
  required: ['toAddress', 'amount'],
  additionalProperties: false,
  properties: {
    toAddress: { type: 'string', minLength: 1, maxLength: 200 },
    amount: DecimalString,
    memo: Memo,
    destinationTag: DestinationTag,
  },
} as const;

/** The intent fields shared by a prepare and a withdrawal request. */
const intentProperties = {
  asset: { type: 'string', minLength: 1, maxLength: 200, description: 'asset key (<chain>:<network>:<asset>) or symbol, e.g. "USDC"' },
  toAddress: { type: 'string', minLength: 1, maxLength: 200, description: 'single recipient (with amount)' },
  amount: { ...DecimalString, description: 'exact decimal in display units (with toAddress)' },
  outputs: {
    type: 'array',
    minItems: 1,
    maxItems: 100,
    items: Recipient,
    description:
      'several recipients in one transaction (chains whose capabilities include multipleOutputs: UTXO); instead of toAddress + amount. Each may carry its own memo and destinationTag',
  },
  fromAddress: {
    type: 'string',
    minLength: 1,
    maxLength: 200,
    description: 'the wallet address that pays (default: the one with the largest indexed balance of the asset)',
  },
  memo: { ...Memo, description: `${Memo.description}; with toAddress + amount (with outputs: outputs[i].memo)` },
  destinationTag: {
    ...DestinationTag,
    description: `${DestinationTag.description}; with toAddress + amount (with outputs: outputs[i].destinationTag)`,
  },
} as const;

const IdempotencyKey = {
  type: 'string',
  pattern: '^[A-Za-z0-9_.:-]{1,128}$',
  // Reserved: an approved request prepares its withdrawal under "request:<id>".
  not: { pattern: '^request:' },
  description: 'the same key with the same body returns the first result; with another body: 409 idempotency_conflict',
} as const;

export const WithdrawalPrepareRequest = {
  $id: 'WithdrawalPrepareRequest',
  type: 'object',
  required: ['asset', 'idempotencyKey'],
  additionalProperties: false,
  properties: { ...intentProperties, idempotencyKey: IdempotencyKey },
} as const;

export const WithdrawalSignRequest = {
  $id: 'WithdrawalSignRequest',
  type: 'object',
  additionalProperties: false,
  properties: {},
} as const;

export const WithdrawalBroadcastRequest = {
  $id: 'WithdrawalBroadcastRequest',
  type: 'object',
  additionalProperties: false,
  properties: {
    signedTransaction: {
      type: 'string',
      minLength: 2,
      maxLength: 200000,
      description: 'a transaction signed elsewhere (EVM: 0x-prefixed serialized tx); omitted: the service signs',
    },
  },
} as const;

export const WithdrawalRequestCreateRequest = {
  $id: 'WithdrawalRequestCreateRequest',
  type: 'object',
  required: ['walletId', 'asset'],
  additionalProperties: false,
  properties: {
    walletId: Id,
    ...intentProperties,
    note: { type: 'string', maxLength: 500, description: 'shown to the approvers' },
    idempotencyKey: IdempotencyKey,
  },
} as const;

export const Withdrawal = {
  $id: 'Withdrawal',
  type: 'object',
  required: [
    'id',
    'walletId',
    'requestId',
    'kind',
    'sweepRuleId',
    'status',
    'chain',
    'network',
    'asset',
    'amount',
    'toAddress',
    'outputs',
    'fromAddress',
    'sourceAddresses',
    'idempotencyKey',
    'feeEstimate',
    'fee',
    'txHash',
    'confirmations',
    'reason',
    'lastError',
    'signedBy',
    'unsignedTransaction',
    'createdAt',
    'updatedAt',
    'signedAt',
    'broadcastAt',
    'confirmedAt',
  ],
  additionalProperties: false,
  properties: {
    id: Id,
    walletId: Id,
    requestId: Nullable(Id),
    kind: {
      enum: ['payout', 'sweep', 'gas_topup'],
      description: 'sweep: made by a sweep rule; gas_topup: the gas station paying the fee of a token sweep (README "Sweeps")',
    },
    sweepRuleId: { ...Nullable(Id), description: 'with kind sweep or gas_topup: the rule that made it' },
    status: { enum: ['prepared', 'signed', 'broadcast', 'confirmed', 'rejected', 'cancelled'] },
    chain: { type: 'string' },
    network: { type: 'string' },
    asset: { $ref: 'Asset' },
    amount: DecimalString,
    toAddress: { type: ['string', 'null'] },
    outputs: { type: 'array', items: RecipientAmount },
    fromAddress: { type: 'string' },
    sourceAddresses: { type: 'array', items: { type: 'string' } },
    idempotencyKey: { type: ['string', 'null'] },
    feeEstimate: { ...Nullable(AmountOfAsset), description: 'the most the transaction can cost (fee cap)' },
    fee: { ...Nullable(AmountOfAsset), description: 'the fee paid on chain, once known' },
    txHash: { type: ['string', 'null'] },
    confirmations: { type: ['integer', 'null'] },
    reason: { enum: ['reorg', 'mempool_dropped', 'failed_on_chain', 'expired', 'provider_error', 'cancelled_onchain', null] },
    lastError: { type: ['string', 'null'], description: 'the last refusal from the node (broadcast) or from a KMS key (signing)' },
    signedBy: { enum: ['server', 'external', null] },
    unsignedTransaction: {
      ...Nullable({
        type: 'object',
        required: ['payload', 'signers'],
        additionalProperties: false,
        properties: {
          payload: { description: 'the chain-specific unsigned transaction (EVM: EIP-1559 fields as decimal strings)' },
          signers: {
            type: 'array',
            items: {
              type: 'object',
              required: ['address', 'derivationPath'],
              additionalProperties: false,
              properties: { address: { type: 'string' }, derivationPath: { type: 'string' } },
            },
          },
        },
      }),
      description: 'while prepared: what to sign elsewhere, and with which keys',
    },
    createdAt: Timestamp,
    updatedAt: Timestamp,
    signedAt: { type: ['string', 'null'], format: 'date-time' },
    broadcastAt: { type: ['string', 'null'], format: 'date-time' },
    confirmedAt: { type: ['string', 'null'], format: 'date-time' },
    attempts: WithdrawalAttempts,
    blockedBy: { ...Id, description: 'signed or broadcast, waiting behind the earlier nonce of this in-flight withdrawal (EVM)' },
    history: {
      type: 'array',
      description: 'GET /withdrawals/{id} only: every state change, oldest first',
      items: {
        type: 'object',
        required: ['status', 'at', 'details'],
        additionalProperties: false,
        properties: { status: { type: 'string' }, at: Timestamp, details: { type: ['object', 'null'] } },
      },
    },
  },
} as const;

export const WithdrawalList = {
  $id: 'WithdrawalList',
  type: 'object',
  required: ['withdrawals', 'next'],
  additionalProperties: false,
  properties: { withdrawals: { type: 'array', items: { $ref: 'Withdrawal' } }, next: { type: ['string', 'null'] } },
} as const;

export const WithdrawalRequest = {
  $id: 'WithdrawalRequest',
  type: 'object',
  required: [
    'id',
    'walletId',
    'status',
    'asset',
    'amount',
    'toAddress',
    'outputs',
    'fromAddress',
    'note',
    'idempotencyKey',
    'requiredApprovals',
    'approvals',
    'countedApprovals',
    'proposedByKey',
    'proposedByMember',
    'withdrawalId',
    'lastError',
    'onApproval',
    'fundsShortSince',
    'expiresAt',
    'createdAt',
    'updatedAt',
    'decidedAt',
  ],
  additionalProperties: false,
  properties: {
    id: Id,
    walletId: Id,
    status: { enum: ['pending', 'approved', 'rejected', 'expired'] },
    asset: { $ref: 'Asset' },
    amount: DecimalString,
    toAddress: { type: ['string', 'null'] },
    outputs: { type: 'array', items: RecipientAmount },
    fromAddress: { type: ['string', 'null'] },
    note: { type: ['string', 'null'] },
    idempotencyKey: { type: ['string', 'null'] },
    requiredApprovals: { type: 'integer', minimum: 1 },
    approvals: {
      type: 'array',
      items: {
        type: 'object',
        required: ['memberId', 'decision', 'at', 'counts'],
        additionalProperties: false,
        properties: {
          memberId: Id,
          decision: { enum: ['approve', 'reject'] },
          at: Timestamp,
          counts: { type: 'boolean', description: 'whether this vote counts toward the quorum now' },
          reason: {
            enum: ['removed', 'role', 'proposer', 'cooling_off'],
            description:
              'why an approval does not count: its member was removed, their role may no longer approve, they proposed the request (or created its API key), or their cooling-off as a new approver has not ended',
          },
          countsFrom: { type: 'string', format: 'date-time', description: 'while cooling_off: when it starts to count' },
        },
      },
    },
    countedApprovals: { type: 'integer', minimum: 0, description: 'the approvals that count toward requiredApprovals now' },
    proposedByKey: { type: ['integer', 'null'] },
    proposedByMember: { type: ['integer', 'null'] },
    withdrawalId: { type: ['integer', 'null'], description: 'the prepared withdrawal, once approved' },
    lastError: { type: ['string', 'null'] },
    onApproval: {
      type: ['string', 'null'],
      enum: ['send', 'wait_for_send', null],
      description: "what the quorum does: send at once, or wait for a person's Send in the console; null until approved",
    },
    fundsShortSince: { type: ['string', 'null'], format: 'date-time', description: 'approved while funds were short: since when' },
    expiresAt: { type: ['string', 'null'], format: 'date-time', description: 'a funds-short approval expires then unless prepared' },
    createdAt: Timestamp,
    updatedAt: Timestamp,
    decidedAt: { type: ['string', 'null'], format: 'date-time' },
  },
} as const;

export const WithdrawalRequestList = {
  $id: 'WithdrawalRequestList',
  type: 'object',
  required: ['requests'],
  additionalProperties: false,
  properties: { requests: { type: 'array', items: { $ref: 'WithdrawalRequest' } } },
} as const;
