import type { Db, Logger, Metrics } from '@walletd/core';

/** One ledger row that differs from its recomputation (figures as decimal strings of base units). */
export interface LedgerDrift {
  walletId: number;
  /** '' for the wallet's total row. */
  address: string;
  /** `fee` is the native asset's fees (see migration 026). */
  assetKey: string;
  kept: { confirmed: string; pending: string; reserved: string };
  history: { confirmed: string; pending: string; reserved: string };
}

const WALLETS_PER_BATCH = 200;

/**
 * The recomputation from history, written apart from the triggers that keep the ledger (migration
 * 026): per wallet of the batch, address ('' = the whole wallet) and asset, what the transfers and
 * the withdrawals add up to, beside the kept row; only the rows that differ come back. A month of
 * transfers taken out by `walletd archive-month` counts by the totals recorded as it was detached
 * (`archived_transfer_totals`, migration 031; '' there is a transfer with no address row).
 */
const COMPARE = `
with batch as (
  select id from wallets where chain = :chain and network = :network and id > :after order by id limit :limit
), moves as (
  select t.wallet_id, a.address as at, t.asset_key,
         case when t.status = 'confirmed' then t.amount else 0 end as confirmed,
         case when t.status = 'pending' then t.amount else 0 end as pending, 0::numeric as reserved
    from transfers t left join addresses a on a.id = t.address_id
   where t.wallet_id in (select id from batch) and t.direction = 'incoming' and t.status in ('confirmed', 'pending')
  union all
  select w.wallet_id, w.from_address, w.asset_key, case when w.status = 'confirmed' then -w.amount else 0 end, 0,
         case when w.status = 'confirmed' then 0 else w.amount end
    from withdrawals w
   where w.wallet_id in (select id from batch) and w.status in ('confirmed', 'prepared', 'signed', 'broadcast')
  union all
  select w.wallet_id, w.source_addresses[array_length(w.source_addresses, 1)], 'fee',
         case when w.status in ('confirmed', 'rejected') then -coalesce(w.fee, 0) else 0 end, 0,
         case when w.status in ('confirmed', 'rejected') then 0 else coalesce((w.unsigned_tx->>'fee')::numeric, 0) end
    from withdrawals w
   where w.wallet_id in (select id from batch) and w.status in ('confirmed', 'rejected', 'prepared', 'signed', 'broadcast')
  union all
  select w.wallet_id, a.address, w.asset_key, w.internal_amount, 0, 0
    from withdrawals w left join addresses a on a.id = w.to_address_id
   where w.wallet_id in (select id from batch) and w.status = 'confirmed' and w.internal_amount > 0
  union all
  select x.wallet_id, nullif(x.address, ''), x.asset_key, x.confirmed, x.pending, 0
    from archived_transfer_totals x
   where x.wallet_id in (select id from batch)
), history as (
  select wallet_id, coalesce(at, '') as address, asset_key,
         sum(confirmed) as confirmed, sum(pending) as pending, sum(reserved) as reserved
    from moves group by grouping sets ((wallet_id, at, asset_key), (wallet_id, asset_key))
  having grouping(at) = 1 or at is not null
), kept as (
  select wallet_id, address, asset_key, confirmed, pending, reserved
    from balance_ledger where wallet_id in (select id from batch)
)
select wallet_id, address, asset_key,
       coalesce(k.confirmed, 0)::text as kept_confirmed, coalesce(k.pending, 0)::text as kept_pending,
       coalesce(k.reserved, 0)::text as kept_reserved, coalesce(h.confirmed, 0)::text as history_confirmed,
       coalesce(h.pending, 0)::text as history_pending, coalesce(h.reserved, 0)::text as history_reserved,
       (select max(id) from batch) as last_wallet
  from history h full join kept k using (wallet_id, address, asset_key)
 where coalesce(h.confirmed, 0) <> coalesce(k.confirmed, 0) or coalesce(h.pending, 0) <> coalesce(k.pending, 0)
    or coalesce(h.reserved, 0) <> coalesce(k.reserved, 0)
union all
select null, null, null, null, null, null, null, null, null, (select max(id) from batch)`;

interface Row {
  wallet_id: number | null;
  address: string;
  asset_key: string;
  kept_confirmed: string;
  kept_pending: string;
  kept_reserved: string;
  history_confirmed: string;
  history_pending: string;
  history_reserved: string;
  last_wallet: number | null;
}

/**
 * Recomputes the balance ledger of every wallet on a chain from its history and returns the rows
 * that differ. Each batch of wallets is read in one REPEATABLE READ snapshot: the ledger changes in
 * the same transactions as the rows it sums, so a write in progress never reads as a drift.
 * Returns null when stopped before the pass ended.
 */
export async function compareLedger(
  db: Db,
  key: { chain: string; network: string },
  shouldStop = () => false,
): Promise<LedgerDrift[] | null> {
  const drifts: LedgerDrift[] = [];
  let after = 0;
  for (;;) {
    if (shouldStop()) return null;
    const rows = await db.transaction(
      async (trx) => {
        // Before the snapshot (taken by the first query, not by LOCK): an archive-month committing
        // meanwhile is waited for and then seen whole, never its detach without its totals.
        await trx.raw('lock table transfers in access share mode');
        return (await trx.raw(COMPARE, { ...key, after, limit: WALLETS_PER_BATCH })).rows as Row[];
      },
      { isolationLevel: 'repeatable read', readOnly: true },
    );
    const last = rows[0]?.last_wallet ?? null;
    for (const r of rows) {
      if (r.wallet_id === null) continue;
      drifts.push({
        walletId: r.wallet_id,
        address: r.address,
        assetKey: r.asset_key,
        kept: { confirmed: r.kept_confirmed, pending: r.kept_pending, reserved: r.kept_reserved },
        history: { confirmed: r.history_confirmed, pending: r.history_pending, reserved: r.history_reserved },
      });
    }
    if (last === null) return drifts;
    after = last;
  }
}

/**
 * The ledger check the indexer runs while leading a chain (`reconciliation.ledgerCheckIntervalMs`):
 * a difference is an alarm (the gauge `walletd_balance_ledger_drifts` and one error line per row),
 * never a correction: the ledger is kept in the same transactions as the history, so a difference
 * means something wrote around them (a manual edit, a restore of one table) and wants a person.
 */
export async function checkLedger(
  deps: { db: Db; logger: Logger; metrics?: Metrics },
  key: { chain: string; network: string },
  shouldStop?: () => boolean,
): Promise<LedgerDrift[] | null> {
  const drifts = await compareLedger(deps.db, key, shouldStop);
  if (drifts === null) return null;
  deps.metrics?.ledgerDrifts.set(key, drifts.length);
  for (const d of drifts.slice(0, 100)) deps.logger.error({ ...key, ...d }, 'balance ledger differs from its recomputation from history');
  return drifts;
}
