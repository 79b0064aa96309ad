import type { Db, Metrics } from '@walletd/core';

/** Every withdrawal status, so a status with no rows reads 0 rather than vanishing from the scrape. */
const WITHDRAWAL_STATUSES = ['prepared', 'signed', 'broadcast', 'confirmed', 'rejected', 'cancelled'];

/**
 * The delivery backlog and withdrawals by status, read at scrape time: the queue is shared by
 * every dispatcher, so no one process's counters could tell it. Both reads use indexes or a small
 * grouped count; a scrape every few seconds is cheap.
 */
export async function refreshDatabaseGauges(db: Db, metrics: Metrics): Promise<void> {
  const [backlog] = (await db('webhook_deliveries')
    .where({ status: 'pending' })
    .select(
      db.raw('count(*)::int as pending'),
      db.raw('coalesce(extract(epoch from now() - min(next_attempt_at) filter (where next_attempt_at <= now())), 0)::float8 as oldest_due'),
    )) as { pending: number; oldest_due: number }[];
  const byStatus = (await db('withdrawals').select('status').count({ n: '*' }).groupBy('status')) as {
    status: string;
    n: string | number;
  }[];
  metrics.deliveriesPending.set(backlog?.pending ?? 0);
  metrics.oldestDueDeliveryAge.set(backlog?.oldest_due ?? 0);
  metrics.withdrawals.reset();
  for (const s of WITHDRAWAL_STATUSES) metrics.withdrawals.set({ status: s }, 0);
  for (const r of byStatus) metrics.withdrawals.set({ status: r.status }, Number(r.n));
}
