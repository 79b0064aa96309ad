import type { Db, Metrics } from '@walletd/core';

/** Every withdrawal status, so a status with no rows reads 0 rather than vanishing from the scrape. */
const WITHDRAWAL_STATUSES = ['prepared', 'signed', 'broadcast', 'confirmed', 'rejected', 'cancelled'];

/**
 * The delivery backlog and withdrawals by status, read at scrape time: the queue is shared by
 * every dispatcher, so no one process's counters could tell it. Both reads use indexes or a small
 * grouped count; a scrape every few seconds is cheap.
 */
export async function refreshDatabaseGauges(
  db: Db,
  metrics: Metrics,
  chains: readonly { chain: string; network: string }[] = [],
): Promise<void> {
  const [backlog] = (await db('webhook_deliveries').where({ status: 'pending' }).select(db.raw('count(*)::int as pending'))) as {
    pending: number;
  }[];
  // Only what will be sent: a disabled webhook's waiting deliveries are not late (issue 29: the
  // age climbed for a webhook switched off on purpose). Per enabled webhook, its oldest pending
  // row on webhook_deliveries_due_by_webhook: one probe each, whatever the backlog. A backed-off
  // webhook's deliveries count: they will be sent, late.
  const { rows: due } = (await db.raw(
    `select coalesce(extract(epoch from now() - min(o.at)), 0)::float8 as oldest_due,
            (count(*) filter (where w.backed_off_until > now()))::int as backed_off
       from webhooks w
       cross join lateral (select min(d.next_attempt_at) as at from webhook_deliveries d
         where d.webhook_id = w.id and d.status = 'pending' and d.next_attempt_at <= now()) o
      where w.enabled and w.deleted_at is null`,
  )) as { rows: { oldest_due: number; backed_off: number }[] };
  const byStatus = (await db('withdrawals').select('status').count({ n: '*' }).groupBy('status')) as {
    status: string;
    n: string | number;
  }[];
  metrics.deliveriesPending.set(backlog?.pending ?? 0);
  metrics.oldestDueDeliveryAge.set(due[0]?.oldest_due ?? 0);
  metrics.webhooksBackedOff.set(due[0]?.backed_off ?? 0);
  // Every followed chain reads 0 when nothing is open, so an alert on > 0 sees it clear.
  const drifts = (await db('reconciliation_checks')
    .whereNotNull('reported_drift')
    .groupBy('chain', 'network')
    .select('chain', 'network', db.raw('count(*)::int as n'))) as { chain: string; network: string; n: number }[];
  metrics.reconciliationDrifts.reset();
  for (const c of chains) metrics.reconciliationDrifts.set({ chain: c.chain, network: c.network }, 0);
  for (const r of drifts) metrics.reconciliationDrifts.set({ chain: r.chain, network: r.network }, r.n);
  metrics.withdrawals.reset();
  for (const s of WITHDRAWAL_STATUSES) metrics.withdrawals.set({ status: s }, 0);
  for (const r of byStatus) metrics.withdrawals.set({ status: r.status }, Number(r.n));
}
