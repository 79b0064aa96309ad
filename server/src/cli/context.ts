import { createLogger, loadConfig, type Logger, type WalletdConfig } from '@walletd/core';
import type { Common } from '../platform/context';
import { knownPlaygroundChains } from '../devnet/playground';
import { loadPlugins } from '../platform/plugins';
import { openRuntime, type Runtime } from '../platform/runtime';

export interface GlobalOptions {
  config?: string;
}

/** Config + logger + runtime for one command; always closed, so an embedded database is stopped. */
export async function withRuntime<T>(
  opts: GlobalOptions,
  fn: (rt: Runtime, config: WalletdConfig, logger: Logger) => Promise<T>,
): Promise<T> {
  const config = loadConfig({ file: opts.config });
  // Logs to stderr at warn: stdout carries the command's JSON.
  const logger = createLogger({ level: process.env.LOG_LEVEL ?? 'warn', base: { role: 'admin' } });
  const rt = await openRuntime(config, logger, { createCluster: false });
  try {
    return await fn(rt, config, logger);
  } finally {
    await rt.close();
    logger.flush();
  }
}

/** With no chains configured, the local chains a running `npm start` describes (as serve does). */
export function chainsOf(config: WalletdConfig): WalletdConfig['chains'] {
  return knownPlaygroundChains(config);
}

/** What a service call needs (config with chains, plugins, database, master key), for one command. */
export async function withCommon<T>(opts: GlobalOptions, fn: (common: Common) => Promise<T>): Promise<T> {
  return withRuntime(opts, async (rt, config, logger) => {
    config.chains = chainsOf(config);
    const plugins = loadPlugins(config.plugins, config.chains);
    try {
      return await fn({ config, logger, db: rt.db, masterKey: rt.masterKey, plugins });
    } finally {
      await plugins.closeReaders();
    }
  });
}
