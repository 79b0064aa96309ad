import { boundedReads } from '@walletd/core';
import type { BoundedReads, Db, Logger, MasterKey, Metrics, PluginRegistry, WalletdConfig } from '@walletd/core';
import type { DatabaseHealth } from './health/databaseHealth';

/** What every service gets: passed explicitly, never a singleton. */
export interface Common {
  config: WalletdConfig;
  logger: Logger;
  db: Db;
  /**
   * The reads that grow with history (transaction list, balances) on their own bounded pool;
   * without it (tests, embedders) they run on `db`, still under `database.readTimeoutMs`.
   */
  reads?: BoundedReads;
  /** Reads that must see the primary (the event feed) under the reads' limits; without it they run on `db`. */
  primaryReads?: BoundedReads;
  masterKey: MasterKey;
  /** Chain plugins, checked at start-up. */
  plugins: PluginRegistry;
  /** The process's Prometheus metrics (served at GET /metrics when present). */
  metrics?: Metrics;
  /** The embedded cluster's supervisor and the disk's free-space floor, read by the probes (serve only). */
  databaseHealth?: DatabaseHealth;
}

/** Where the reads that grow with history run: `common.reads`, or bounded on the main pool. */
export function historyReads(common: Pick<Common, 'reads' | 'db' | 'config'>): BoundedReads {
  return common.reads ?? boundedReads(common.db, common.config.database.readTimeoutMs);
}
