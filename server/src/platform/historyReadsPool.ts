import {
  boundedReads,
  type BoundedReads,
  createDb,
  keepGenericPlans,
  type Db,
  type Logger,
  readLimits,
  readsOnConnection,
  replicaCatchUp,
  type WalletdConfig,
} from '@walletd/core';

export interface HistoryReadsPool {
  reads: BoundedReads;
  /**
   * Reads that must see the primary (the event feed: its visibility horizon is the primary's
   * running transactions), under the same limits and plan mode as `reads`: `reads` itself when it
   * is on the primary, a pool of its own there when a replica serves `reads`. Absent with
   * `readLimitsAtConnect: false` (a pooler): those reads stay on the main pool.
   */
  primaryReads?: BoundedReads;
  destroy(): Promise<void>;
}

/**
 * The pool of the reads that grow with history (`database.readPoolMax`, `readTimeoutMs`): on the
 * primary (`primaryUrl`, the main pool's server), or on `database.replicaUrl` when one is set,
 * where each read first waits for the replica to have replayed the primary's commits
 * (replicaCatchUp.ts, `replicaMaxLagMs`). Only these reads move: writes, reservations,
 * idempotency, the dispatcher and the indexer stay on the primary's main pool, and the event feed
 * on the primary under the same limits (`primaryReads`; docs/operate/data-and-replicas.md, "Read replica").
 * Why the feed leaves the main pool: its page runs on its generic plan, and on the main pool each
 * page set and reset the plan mode around it, two more round trips than `/v1/me` makes in all
 * (strace, bench/README.md `api`).
 * The timeout and read-only mode are the connections' own startup settings (one round trip per
 * statement), or with `database.readLimitsAtConnect: false` (PgBouncer) each read's transaction's.
 * Opens no connection until the first such read (min 0): commands that make none cost nothing.
 * A read waits for a free connection at most as long as one may run, then answers 503.
 */
export function openHistoryReads(config: WalletdConfig, primaryUrl: string, primary: Db, logger: Logger): HistoryReadsPool {
  const { replicaUrl, readTimeoutMs, replicaMaxLagMs, readLimitsAtConnect } = config.database;
  const history = openReadsPool(config, replicaUrl ?? primaryUrl, logger);
  const before = replicaUrl ? replicaCatchUp(primary, replicaMaxLagMs) : undefined;
  const reads = readLimitsAtConnect ? readsOnConnection(history, readTimeoutMs, before) : boundedReads(history, readTimeoutMs, before);
  if (!readLimitsAtConnect) return { reads, destroy: () => history.destroy() };
  if (!replicaUrl) return { reads, primaryReads: reads, destroy: () => history.destroy() };
  const onPrimary = openReadsPool(config, primaryUrl, logger);
  return {
    reads,
    primaryReads: readsOnConnection(onPrimary, readTimeoutMs),
    destroy: async () => {
      await Promise.all([history.destroy(), onPrimary.destroy()]);
    },
  };
}

/** A reads pool (`readPoolMax`, `readTimeoutMs`) on `url`, opening no connection until its first read. */
function openReadsPool(config: WalletdConfig, url: string, logger: Logger): Db {
  const { readPoolMax, readTimeoutMs, preparedStatements, readLimitsAtConnect } = config.database;
  const db = createDb({
    url,
    poolMax: readPoolMax,
    preparedStatements,
    logger,
    applicationName: `walletd-reads:${process.pid}`,
    acquireTimeoutMs: readTimeoutMs,
    ...(readLimitsAtConnect ? { settings: readLimits(readTimeoutMs) } : {}),
  });
  // The list pages' SET of their plan mode once per connection, not around each page (prepared.ts).
  if (readLimitsAtConnect) keepGenericPlans(db);
  return db;
}
