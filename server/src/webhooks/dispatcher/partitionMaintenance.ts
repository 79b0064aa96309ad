import { type Db, ensureMonthPartitions, type Logger, PARTITIONED_TABLES } from '@walletd/core';

/** How often a dispatcher makes sure the coming months have their partitions (and once at its start). */
export const PARTITIONS_EVERY_MS = 60 * 60_000;

/**
 * Creates the month partitions of `events` and `transfers` ahead of time (migration 027): the
 * current month and the next three, so a month's rows never pile up in the DEFAULT partition (where
 * they would stay, and keep that month from being created). Any number of dispatchers may run it:
 * a month another one created meanwhile is skipped or refused, and the next run sees it. A month
 * PostgreSQL refuses (its rows already in the default partition) is logged as an error, with what
 * to do in docs/operate/retention.md.
 */
export async function maintainPartitions(db: Db, logger: Logger, now = new Date()): Promise<string[]> {
  const created: string[] = [];
  for (const table of PARTITIONED_TABLES) {
    const made = await ensureMonthPartitions(db, table, { now });
    created.push(...made.created);
    for (const r of made.refused)
      if (!/already exists/.test(r.error)) logger.error({ partition: r.name, error: r.error }, 'could not create a month partition');
  }
  if (created.length > 0) logger.info({ created }, 'created month partitions');
  return created;
}

export function startPartitionMaintenance(db: Db, logger: Logger): { stop(): Promise<void> } {
  let current: Promise<unknown> | undefined;
  const run = () => {
    current ??= maintainPartitions(db, logger)
      .catch((err) => logger.error({ err }, 'partition maintenance failed; retrying at the next run'))
      .finally(() => {
        current = undefined;
      });
  };
  run();
  const timer = setInterval(run, PARTITIONS_EVERY_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await current;
    },
  };
}
