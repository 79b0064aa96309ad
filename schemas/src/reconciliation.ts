import { ChainName, DecimalString, Id, SignedDecimalString, Timestamp } from './common';

/** README "Reconciliation": what the indexer found comparing indexed balances with the node's. */

const nullableTimestamp = { type: ['string', 'null'], format: 'date-time' } as const;

/** One comparison of an address (or a pooled wallet) and asset with the node: its last run's figures. */
export const ReconciliationCheck = {
  $id: 'ReconciliationCheck',
  type: 'object',
  required: ['walletId', 'address', 'asset', 'indexed', 'pending', 'inFlight', 'onchain', 'drift', 'open', 'driftSince', 'checkedAt'],
  additionalProperties: false,
  properties: {
    walletId: Id,
    address: { type: ['string', 'null'], description: 'the account compared; null for a pooled wallet (its every address summed)' },
    asset: { $ref: 'Asset' },
    indexed: { ...SignedDecimalString, description: "what walletd's ledger credits (negative only if the ledger is wrong)" },
    pending: { ...DecimalString, description: 'deposits detected, not final: the node may already count them' },
    inFlight: { ...DecimalString, description: 'amounts and fee caps of withdrawals signed or broadcast from here' },
    onchain: { ...DecimalString, description: "the node's total (spendable plus the chain's minimum)" },
    drift: {
      ...SignedDecimalString,
      description: 'beyond what the known causes explain, signed (positive: the node holds more); "0" when the node agrees',
    },
    open: { type: 'boolean', description: 'a drift announced (reconciliation.drift) and not cleared since' },
    driftSince: { ...nullableTimestamp, description: 'since when the node has disagreed; null while it agrees' },
    checkedAt: Timestamp,
  },
} as const;

/** GET /v1/wallets/{id}/reconciliation. */
export const WalletReconciliation = {
  $id: 'WalletReconciliation',
  type: 'object',
  required: ['walletId', 'chain', 'network', 'intervalMs', 'lastRunAt', 'lastPassAt', 'lastError', 'checks'],
  additionalProperties: false,
  properties: {
    walletId: Id,
    chain: ChainName,
    network: { type: 'string' },
    intervalMs: { type: 'integer', minimum: 0, description: 'reconciliation.intervalMs: between two runs; 0: reconciliation is off' },
    lastRunAt: { ...nullableTimestamp, description: "when the chain's last run ended; null before the first" },
    lastPassAt: { ...nullableTimestamp, description: 'when the last pass over every address ended' },
    lastError: { type: ['string', 'null'], description: 'why the last run stopped early (a node that failed); null when it did not' },
    checks: {
      type: 'array',
      items: { $ref: 'ReconciliationCheck' },
      description: 'every address and asset that holds anything or has a drift open: open drifts first, then by address and asset',
    },
  },
} as const;

/** GET /v1/reconciliation. */
export const ReconciliationDriftList = {
  $id: 'ReconciliationDriftList',
  type: 'object',
  required: ['drifts'],
  additionalProperties: false,
  properties: {
    drifts: { type: 'array', items: { $ref: 'ReconciliationCheck' }, description: "the open drifts of the key's wallets, newest first" },
  },
} as const;
