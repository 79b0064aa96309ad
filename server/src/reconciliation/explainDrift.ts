import { type AssetRef, fromBaseUnits, parseBaseUnits } from '@walletd/core';
import type { Knex } from 'knex';
import type { Scope } from './scopeFigures';

/** A reason the records give for a drift (docs/guide/reconciliation.md: what a drift names). */
export interface DriftCause {
  /**
   * `reorg`: a reorg deeper than the confirmation threshold retracted transfers or payouts here (or
   * the indexer recorded one on the chain: audit `chain.deep_reorg`); `traces_unavailable`: the node
   * refuses call traces, so native value moved by contracts is not seen; `chain_stopped`: the
   * indexer stopped following the chain; `in_flight`: deposits not final or withdrawals sent here.
   */
  cause: 'reorg' | 'traces_unavailable' | 'chain_stopped' | 'in_flight';
  description: string;
  /** Transfer ids (transactions[].id of type transfer) the cause concerns. */
  transfers?: number[];
  /** Withdrawal ids the cause concerns. */
  withdrawals?: number[];
}

/** A transfer or withdrawal on the scope and asset since the node last agreed. */
export interface DriftTransaction {
  type: 'transfer' | 'withdrawal';
  id: number;
  txHash: string | null;
  /** Transfers: incoming or outgoing; withdrawals: always outgoing. */
  direction: string;
  amount: string;
  status: string;
  reason: string | null;
  updatedAt: string;
}

export interface DriftExplanation {
  /** Since when the transactions are listed: the last check that agreed (null: never seen agreeing). */
  since: string | null;
  causes: DriftCause[];
  transactions: DriftTransaction[];
}

/** Transactions a drift lists at most (the newest). */
const MAX_TRANSACTIONS = 20;

interface TxRow {
  id: string | number;
  tx_hash: string | null;
  direction: string;
  amount: string;
  status: string;
  reason: string | null;
  updated_at: Date;
}

/**
 * What the records say about a drift at `scope` and `asset` since `since`: the transfers and
 * withdrawals that touched it (newest first) and the causes they, the chain's readiness and the
 * audit log name. Read-only; run in the transaction that records the check.
 */
export async function explainDrift(
  db: Knex | Knex.Transaction,
  key: { chain: string; network: string },
  scope: Scope,
  asset: AssetRef,
  since: Date | null,
): Promise<DriftExplanation> {
  const transfers = (await transfersOn(db, scope, asset.key)
    .modify((q) => (since ? q.where('t.updated_at', '>=', since) : q))
    .orderBy('t.updated_at', 'desc')
    .limit(MAX_TRANSACTIONS)
    .select('t.id', 't.tx_hash', 't.direction', 't.amount', 't.status', 't.reason', 't.updated_at')) as TxRow[];
  const withdrawals = (await withdrawalsFrom(db, scope, asset.key)
    .modify((q) => (since ? q.where('updated_at', '>=', since) : q))
    .orderBy('updated_at', 'desc')
    .limit(MAX_TRANSACTIONS)
    .select('id', 'tx_hash', db.raw("'outgoing' as direction"), 'amount', 'status', 'reason', 'updated_at')) as TxRow[];
  const show = (v: string) => fromBaseUnits(parseBaseUnits(v), asset.decimals);
  const tx = (type: DriftTransaction['type']) => (r: TxRow) => ({
    type,
    id: Number(r.id),
    txHash: r.tx_hash,
    direction: r.direction,
    amount: show(r.amount),
    status: r.status,
    reason: r.reason,
    updatedAt: r.updated_at.toISOString(),
  });
  const transactions = [...transfers.map(tx('transfer')), ...withdrawals.map(tx('withdrawal'))]
    .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))
    .slice(0, MAX_TRANSACTIONS);

  const causes: DriftCause[] = [];
  const ids = (rows: TxRow[], keep: (r: TxRow) => boolean) => rows.filter(keep).map((r) => Number(r.id));
  const reorged = (r: TxRow) => r.reason === 'reorg';
  const retracted = ids(transfers, (r) => reorged(r) && r.status === 'rejected');
  const withdrawalsReorged = ids(withdrawals, reorged);
  const deepReorgs = (await db('audit_log')
    .where({ action: 'chain.deep_reorg' })
    .whereRaw("details->>'chain' = ? and details->>'network' = ?", [key.chain, key.network])
    .modify((q) => (since ? q.where('created_at', '>=', since) : q))
    .orderBy('id', 'desc')
    .limit(5)
    .select('details')) as { details: { ancestor?: unknown; from?: unknown } | null }[];
  if (retracted.length > 0 || withdrawalsReorged.length > 0 || deepReorgs.length > 0) {
    const at = deepReorgs
      .map((d) => `from block ${String(d.details?.from ?? '?')} back to ${String(d.details?.ancestor ?? '?')}`)
      .join('; ');
    causes.push({
      cause: 'reorg',
      description: `a reorg deeper than the confirmation threshold${at ? ` (${at})` : ''} took back ${retracted.length} transfer(s) and ${withdrawalsReorged.length} withdrawal(s) here`,
      ...(retracted.length ? { transfers: retracted } : {}),
      ...(withdrawalsReorged.length ? { withdrawals: withdrawalsReorged } : {}),
    });
  }
  const chain = { chain: key.chain, network: key.network };
  const health = (await db('chain_health').where(chain).first('reason')) as { reason: string | null } | undefined;
  if (health?.reason === 'traces_unavailable')
    causes.push({
      cause: 'traces_unavailable',
      description:
        'the node refuses call traces: native value moved by contracts to this address is not seen (docs/guide/deposits.md, EVM: native coins sent by contracts)',
    });
  const halt = (await db('followed_chains').where(chain).whereNotNull('halted_at').first('halted_code')) as
    | { halted_code: string }
    | undefined;
  if (halt)
    causes.push({
      cause: 'chain_stopped',
      description: `the indexer stopped following the chain (${halt.halted_code}): blocks since are not read`,
    });
  const pendingIn = (await transfersOn(db, scope, asset.key).where({ 't.direction': 'incoming', 't.status': 'pending' }).pluck('t.id')).map(
    Number,
  );
  const sending = (await withdrawalsFrom(db, scope, asset.key).whereIn('status', ['signed', 'broadcast']).pluck('id')).map(Number);
  if (pendingIn.length > 0 || sending.length > 0)
    causes.push({
      cause: 'in_flight',
      description: `${pendingIn.length} deposit(s) not final and ${sending.length} withdrawal(s) sent, not yet final, here`,
      ...(pendingIn.length ? { transfers: pendingIn } : {}),
      ...(sending.length ? { withdrawals: sending } : {}),
    });
  return { since: since?.toISOString() ?? null, causes, transactions };
}

/** The scope's transfers of the asset: an account's own, or every one of a pooled wallet. */
function transfersOn(db: Knex | Knex.Transaction, scope: Scope, assetKey: string) {
  const q = db('transfers as t').where({ 't.wallet_id': scope.walletId, 't.asset_key': assetKey });
  if (scope.address !== null) q.join('addresses as a', 'a.id', 't.address_id').where('a.address', scope.address);
  return q;
}

/** The scope's withdrawals of the asset: those paid from the account, or every one of a pooled wallet. */
function withdrawalsFrom(db: Knex | Knex.Transaction, scope: Scope, assetKey: string) {
  const q = db('withdrawals').where({ wallet_id: scope.walletId, asset_key: assetKey });
  if (scope.address !== null) q.where('from_address', scope.address);
  return q;
}
