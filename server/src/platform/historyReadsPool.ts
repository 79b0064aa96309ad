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
  destroy(): Promise<void>;
}

/**
 * The pool of the reads that grow with history (`database.readPoolMax`, `readTimeoutMs`): on the
 * primary (`primaryUrl`, the main pool's server), or on `database.replicaUrl` when one is set,
 * where each read first waits for the replica to have replayed the primary's commits
 * (replicaCatchUp.ts, `replicaMaxLagMs`). Only these reads move: writes, reservations,
 * idempotency, the event feed and its visibility horizon, the dispatcher and the indexer stay on
 * the primary's main pool (docs/operate/data-and-replicas.md, "Read replica").
 * The timeout and read-only mode are the connections' own startup settings (one round trip per
 * statement), or with `database.readLimitsAtConnect: false` (PgBouncer) each read's transaction's.
 * Opens no connection until the first such read (min 0): commands that make none cost nothing.
 * A read waits for a free connection at most as long as one may run, then answers 503.
 */
export function openHistoryReads(config: WalletdConfig, primaryUrl: string, primary: Db, logger: Logger): HistoryReadsPool {
  const { replicaUrl, readPoolMax, readTimeoutMs, replicaMaxLagMs, preparedStatements, readLimitsAtConnect } = config.database;
  const readsDb = createDb({
    url: replicaUrl ?? primaryUrl,
    poolMax: readPoolMax,
    preparedStatements,
    logger,
    applicationName: `walletd-reads:${process.pid}`,
    acquireTimeoutMs: readTimeoutMs,
    ...(readLimitsAtConnect ? { settings: readLimits(readTimeoutMs) } : {}),
  });
  // The list pages' SET of their plan mode once per connection, not around each page (prepared.ts).
  if (readLimitsAtConnect) keepGenericPlans(readsDb);
  const before = replicaUrl ? replicaCatchUp(primary, replicaMaxLagMs) : undefined;
  const reads = readLimitsAtConnect ? readsOnConnection(readsDb, readTimeoutMs, before) : boundedReads(readsDb, readTimeoutMs, before);
  return { reads, destroy: () => readsDb.destroy() };
}
