import type { Db, Logger, MasterKey, Metrics, PluginRegistry, WalletdConfig } from '@walletd/core';
import type { DatabaseHealth } from './health/databaseHealth';

/** What every service gets: passed explicitly, never a singleton. */
export interface Common {
  config: WalletdConfig;
  logger: Logger;
  db: Db;
  masterKey: MasterKey;
  /** Chain plugins, checked at start-up. */
  plugins: PluginRegistry;
  /** The process's Prometheus metrics (served at GET /metrics when present). */
  metrics?: Metrics;
  /** The embedded cluster's supervisor and the disk's free-space floor, read by the probes (serve only). */
  databaseHealth?: DatabaseHealth;
}
