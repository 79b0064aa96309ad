import type { Db, Logger } from '@walletd/core';

/**
 * Rows per batch: each batch is one short statement (milliseconds on the index below), so the
 * locks it takes are held that briefly, and a dispatcher never waits on them anyway (below).
 */
export const PRUNE_BATCH_ROWS = 1000;

/**
 * Deletes up to `limit` delivery attempt rows that have been final (delivered, or failed for good)
 * for longer than `retentionDays`, oldest first; returns how many.
 *
 * It never holds back the dispatcher: it only ever touches final rows, which no claim, attempt
 * record or redelivery updates (a redelivery inserts a new pending row); the rows are picked on
 * `webhook_deliveries_final_by_age` (migration 023), which holds no pending row; and
 * `FOR UPDATE SKIP LOCKED` passes over any row another session holds instead of waiting for it
 * (a second dispatcher pruning, or a 'webhook deleted' row whose leased attempt is being
 * recorded), re-checking the condition on the row it locks. A pending row is never deleted.
 */
export async function pruneDeliveriesBatch(db: Db, retentionDays: number, limit = PRUNE_BATCH_ROWS): Promise<number> {
  const result = (await db.raw(
    `with doomed as (
       select id from webhook_deliveries
       where status in ('delivered', 'failed') and updated_at < now() - make_interval(days => ?::int)
       order by updated_at, id
       limit ?::int
       for update skip locked
     )
     delete from webhook_deliveries d using doomed where d.id = doomed.id`,
    [retentionDays, limit],
  )) as { rowCount: number | null };
  return result.rowCount ?? 0;
}

/**
 * Batches until one comes back short (nothing older is left) or `keepGoing()` says stop (the
 * dispatcher shutting down). Each batch commits on its own: nothing is held between them.
 */
export async function pruneDeliveries(db: Db, retentionDays: number, keepGoing: () => boolean = () => true): Promise<number> {
  let total = 0;
  while (keepGoing()) {
    const n = await pruneDeliveriesBatch(db, retentionDays);
    total += n;
    if (n < PRUNE_BATCH_ROWS) break;
  }
  return total;
}

/** How often a dispatcher looks for rows past their retention (and once at its start). */
export const PRUNE_EVERY_MS = 10 * 60_000;

export interface DeliveryPruner {
  stop(): Promise<void>;
}

/** The dispatcher's retention loop: off with `retentionDays` 0. Errors are logged, the next run retries. */
export function startDeliveryPruner(db: Db, retentionDays: number, logger: Logger): DeliveryPruner {
  if (retentionDays <= 0) return { stop: async () => undefined };
  let running = true;
  let current: Promise<void> | undefined;
  const run = () => {
    if (current) return; // the previous run is still going (a large first prune): it carries on
    current = pruneDeliveries(db, retentionDays, () => running)
      .then((pruned) => {
        if (pruned > 0) logger.info({ pruned, retentionDays }, 'pruned delivery attempts past webhooks.deliveryRetentionDays');
      })
      .catch((err) => logger.error({ err }, 'pruning delivery attempts failed; retrying at the next run'))
      .finally(() => {
        current = undefined;
      });
  };
  run();
  const timer = setInterval(() => {
    if (running) run();
  }, PRUNE_EVERY_MS);
  timer.unref();
  return {
    async stop() {
      running = false;
      clearInterval(timer);
      await current;
    },
  };
}
