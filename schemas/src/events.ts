import { AmountOfAsset, ChainName, DecimalString, RecipientAmount, SignedDecimalString, Timestamp } from './common';

import { EVENT_TYPES, OPT_IN_EVENT_TYPES } from '@walletd/core';

/**
 * Spec 2.4–2.7: the event envelope and its data. Receivers get exactly these shapes. EVENT_TYPES
 * are the spec's six (`*`); OPT_IN_EVENT_TYPES reach only a webhook or feed call that names them.
 */
export { EVENT_TYPES, OPT_IN_EVENT_TYPES };

export const Asset = {
  $id: 'Asset',
  type: 'object',
  required: ['key', 'symbol', 'decimals', 'contractAddress'],
  additionalProperties: false,
  properties: {
    key: { type: 'string', pattern: '^[a-z]+:[a-z0-9-]+:.+$', description: '<chain>:<network>:<asset>' },
    symbol: { type: 'string' },
    decimals: { type: 'integer', minimum: 0 },
    contractAddress: { type: ['string', 'null'] },
  },
} as const;

const addressAmount = {
  type: 'object',
  required: ['address', 'amount'],
  additionalProperties: false,
  properties: { address: { type: 'string' }, amount: DecimalString },
} as const;

export const DepositEventData = {
  $id: 'DepositEventData',
  type: 'object',
  required: [
    'chain',
    'network',
    'txHash',
    'addressId',
    'confirmations',
    'status',
    'direction',
    'amount',
    'asset',
    'toAddress',
    'eventType',
    'eventIndex',
  ],
  additionalProperties: false,
  properties: {
    chain: ChainName,
    network: { type: 'string' },
    txHash: { type: 'string' },
    addressId: { type: 'integer' },
    confirmations: { type: 'integer', minimum: 0 },
    status: { enum: ['pending', 'confirmed', 'rejected'] },
    direction: { const: 'incoming' },
    amount: DecimalString,
    asset: { $ref: 'Asset' },
    fromAddress: { type: 'string' },
    toAddress: { type: 'string' },
    eventType: { type: 'string' },
    eventIndex: { type: 'integer', minimum: 0 },
    logIndex: { type: 'integer', minimum: 0 },
    reason: {
      type: 'string',
      description:
        'deposit.rejected: reorg or mempool_dropped. A held deposit (status pending, never confirmed by itself; README "Zero amounts and tokens that misreport"): balance_mismatch',
    },
    previousStatus: {
      enum: ['pending', 'confirmed'],
      description:
        'deposit.rejected: the status the deposit had before it was retracted; confirmed means a reorg took back a deposit already announced as confirmed, so a receiver that credited it must reverse the credit (README "What a receiver gets")',
    },
    inputs: { type: 'array', items: addressAmount },
    outputs: { type: 'array', items: addressAmount },
    destinationTag: { type: ['integer', 'null'] },
    memo: { type: ['string', 'null'] },
    owner: { type: 'string', description: 'chains with token accounts: the account that owns the credited token account (toAddress)' },
    mint: { type: 'string', description: 'chains with token accounts: the token (mint) the credited token account holds' },
  },
} as const;

export const WithdrawalEventData = {
  $id: 'WithdrawalEventData',
  type: 'object',
  required: ['chain', 'network', 'withdrawalId', 'txHash', 'status', 'amount', 'asset', 'fromAddress', 'sourceAddresses'],
  additionalProperties: false,
  properties: {
    chain: ChainName,
    network: { type: 'string' },
    withdrawalId: { type: 'integer' },
    txHash: { type: 'string' },
    status: { enum: ['broadcast', 'confirmed', 'rejected'] },
    confirmations: { type: 'integer', minimum: 0 },
    amount: DecimalString,
    asset: { $ref: 'Asset' },
    fromAddress: { type: 'string' },
    sourceAddresses: { type: 'array', items: { type: 'string' }, minItems: 1 },
    kind: {
      enum: ['payout', 'sweep', 'gas_topup'],
      description:
        'sweep: made by a sweep rule; gas_topup: the gas station paying a deposit address the fee of that rule\'s token sweep (README "Sweeps"); absent on events recorded before sweeps',
    },
    sweepRuleId: { type: 'integer', description: 'with kind sweep or gas_topup: the rule that made it' },
    toAddress: { type: 'string' },
    memo: { type: 'string', description: 'with toAddress: the memo the transaction carried, when it had one' },
    destinationTag: { type: 'integer', minimum: 0, description: 'with toAddress: the destination tag, when it had one' },
    outputs: { type: 'array', items: RecipientAmount },
    fee: {
      ...AmountOfAsset,
      description: 'withdrawal.confirmed: the fee paid; withdrawal.rejected cancelled_onchain: the fee the landed cancel paid',
    },
    reason: { enum: ['reorg', 'mempool_dropped', 'failed_on_chain', 'expired', 'provider_error', 'cancelled_onchain'] },
    previousStatus: {
      enum: ['confirmed', 'rejected'],
      description:
        'withdrawal.broadcast with reason reorg: a reorg took the confirmed transaction out of its block; it is confirmed again if it lands again, else withdrawal.rejected with reason reorg. previousStatus rejected: an on-chain cancel (cancelled_onchain) taken out of its block; the withdrawal is judged again by all its transactions',
    },
  },
} as const;

/** `reconciliation.drift` / `.cleared` (docs/guide/reconciliation.md): opt-in, never sent to `*`. */
export const ReconciliationEventData = {
  $id: 'ReconciliationEventData',
  type: 'object',
  required: ['chain', 'network', 'walletId', 'address', 'asset', 'status', 'amount', 'indexed', 'pending', 'inFlight', 'onchain'],
  additionalProperties: false,
  properties: {
    chain: ChainName,
    network: { type: 'string' },
    walletId: { type: 'integer' },
    address: { type: ['string', 'null'], description: 'the account compared; null for a pooled wallet (its every address summed)' },
    asset: { $ref: 'Asset' },
    status: { enum: ['drift', 'cleared'] },
    amount: {
      ...SignedDecimalString,
      description: 'the drift beyond what the known causes explain, signed (positive: the node holds more); "0" when cleared',
    },
    indexed: { ...SignedDecimalString, description: "what walletd's ledger credits (negative only if the ledger is wrong)" },
    pending: { ...DecimalString, description: 'deposits detected, not final' },
    inFlight: { ...DecimalString, description: 'amounts and fee caps of withdrawals signed or broadcast from here' },
    onchain: { ...DecimalString, description: 'what the node reports' },
    previousDrift: { ...SignedDecimalString, description: 'cleared only: the drift announced before' },
    // drift only: the causes the records name and the transactions since the node last agreed.
    explanation: { $ref: 'DriftExplanation' },
  },
} as const;

export const EventEnvelope = {
  $id: 'EventEnvelope',
  type: 'object',
  required: ['id', 'type', 'chain', 'network', 'companyId', 'createdAt', 'data'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', format: 'uuid' },
    type: { enum: [...EVENT_TYPES, ...OPT_IN_EVENT_TYPES] },
    chain: ChainName,
    network: { type: 'string' },
    companyId: { type: 'integer' },
    createdAt: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$' },
    data: { oneOf: [{ $ref: 'DepositEventData' }, { $ref: 'WithdrawalEventData' }, { $ref: 'ReconciliationEventData' }] },
  },
} as const;

export const EventFeed = {
  $id: 'EventFeed',
  type: 'object',
  required: ['events', 'next', 'hasMore'],
  additionalProperties: false,
  properties: {
    events: { type: 'array', items: { $ref: 'EventEnvelope' } },
    next: { type: 'string', description: 'Cursor after the last event returned: pass it as `after` in the next call (also when polling)' },
    hasMore: { type: 'boolean', description: 'true when more events follow right away' },
  },
} as const;

export { Timestamp };
