import type { Db, Logger, MasterKey, PluginRegistry, WalletdConfig } from '@walletd/core';

/** What every service gets: passed explicitly, never a singleton. */
export interface Common {
  config: WalletdConfig;
  logger: Logger;
  db: Db;
  masterKey: MasterKey;
  /** Chain plugins, checked at start-up. */
  plugins: PluginRegistry;
}
