import { ChainName, DecimalString, Id, SignedDecimalString, Timestamp } from './common';

/** docs/guide/reconciliation.md: what the indexer found comparing indexed balances with the node's. */

const nullableTimestamp = { type: ['string', 'null'], format: 'date-time' } as const;

const ids = (what: string) => ({ type: 'array', items: Id, description: what }) as const;

/** What the records say about a drift (docs/guide/reconciliation.md: what a drift names). */
export const DriftExplanation = {
  $id: 'DriftExplanation',
  type: 'object',
  required: ['since', 'causes', 'transactions'],
  additionalProperties: false,
  properties: {
    since: {
      ...nullableTimestamp,
      description: 'the last check that agreed here; transactions are listed from then (null: never seen agreeing)',
    },
    causes: {
      type: 'array',
      description:
        'what the records name as reasons; empty when nothing explains the drift (a deposit the indexer skipped, a payout made elsewhere)',
      items: {
        type: 'object',
        required: ['cause', 'description'],
        additionalProperties: false,
        properties: {
          cause: {
            enum: ['reorg', 'traces_unavailable', 'chain_stopped', 'in_flight'],
            description:
              'reorg: a reorg deeper than the confirmation threshold took back transfers or payouts (or the chain recorded one, audit chain.deep_reorg); traces_unavailable: the node refuses call traces, native value moved by contracts is not seen; chain_stopped: the indexer stopped following the chain; in_flight: deposits not final or withdrawals sent',
          },
          description: { type: 'string' },
          transfers: ids('ids of the transfers (transactions[] of type transfer) it concerns'),
          withdrawals: ids('ids of the withdrawals it concerns'),
        },
      },
    },
    transactions: {
      type: 'array',
      description: 'transfers and withdrawals of the asset at the address (pooled: the wallet) since `since`, newest first, at most 20',
      items: {
        type: 'object',
        required: ['type', 'id', 'txHash', 'direction', 'amount', 'status', 'reason', 'updatedAt'],
        additionalProperties: false,
        properties: {
          type: { enum: ['transfer', 'withdrawal'] },
          id: Id,
          txHash: { type: ['string', 'null'] },
          direction: { enum: ['incoming', 'outgoing'] },
          amount: DecimalString,
          status: { type: 'string' },
          reason: { type: ['string', 'null'], description: 'why it was rejected, e.g. reorg' },
          updatedAt: Timestamp,
        },
      },
    },
  },
} as const;

/** One comparison of an address (or a pooled wallet) and asset with the node: its last run's figures. */
export const ReconciliationCheck = {
  $id: 'ReconciliationCheck',
  type: 'object',
  required: [
    'walletId',
    'address',
    'asset',
    'indexed',
    'pending',
    'inFlight',
    'onchain',
    'drift',
    'open',
    'driftSince',
    'checkedAt',
    'explanation',
  ],
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
    explanation: {
      oneOf: [{ type: 'null' }, { $ref: 'DriftExplanation' }],
      description: 'while the node disagrees: the causes the records name and the transactions since it last agreed',
    },
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

/** POST /v1/reconciliation/checks: a "check now" and what it found. */
export const ReconciliationCheckRun = {
  $id: 'ReconciliationCheckRun',
  type: 'object',
  required: ['startedAt', 'finishedAt', 'joined', 'chains', 'drifts'],
  additionalProperties: false,
  properties: {
    startedAt: Timestamp,
    finishedAt: Timestamp,
    joined: { type: 'boolean', description: "true: the company's check was already under way; this is its result" },
    chains: {
      type: 'array',
      items: {
        type: 'object',
        required: ['chain', 'network', 'addresses', 'drifts', 'cleared', 'awaiting', 'complete', 'error'],
        additionalProperties: false,
        properties: {
          chain: ChainName,
          network: { type: 'string' },
          addresses: { type: 'integer', minimum: 0, description: 'addresses compared (of every wallet of the company)' },
          drifts: { type: 'integer', minimum: 0, description: 'drifts announced (reconciliation.drift) by this check' },
          cleared: { type: 'integer', minimum: 0, description: 'drifts cleared (reconciliation.cleared) by this check' },
          awaiting: {
            type: 'integer',
            minimum: 0,
            description: 'drifts seen at the first look that the second look saw changed: announced once seen twice',
          },
          complete: { type: 'boolean', description: 'false: reconciliation.addressesPerRun was reached before the last address' },
          error: { type: ['string', 'null'], description: 'why the chain was not compared to the end (the node failed); null when it was' },
        },
      },
    },
    drifts: {
      type: 'array',
      items: { $ref: 'ReconciliationCheck' },
      description: "what the check found outside the band, of the key's wallets: open (announced) or awaiting its second look",
    },
  },
} as const;
