import { existsSync } from 'node:fs';
import { type ChainSettings, ConfigError, type Db, type Logger, type PluginRegistry, type WalletdConfig } from '@walletd/core';
import { forgetChain } from '@walletd/indexer';
import { devnetModules, localChainFile, localChainSettings, readLocalChainInfo, startLocalChains } from './localChains';

/** The playground runs when no chain is configured and the devnet is on (the default). */
export const playgroundOn = (config: WalletdConfig) => config.chains.length === 0 && config.devnet.enabled;

/**
 * The local chains a running playground describes (its info files), for the roles and commands
 * that do not run them: the API's assets and reads, `walletd dev fund`, `walletd indexer rescan`.
 */
export function knownPlaygroundChains(config: WalletdConfig): ChainSettings[] {
  if (!playgroundOn(config)) return config.chains;
  return devnetModules(config)
    .filter((m) => existsSync(localChainFile(config.dataDir, m.name)))
    .map((m) => localChainSettings(readLocalChainInfo(config.dataDir, m.name)));
}

/** A local chain whose plugin is not loaded could be run but never followed: refused before anything starts. */
export function checkPlaygroundPlugins(config: WalletdConfig, plugins: PluginRegistry): void {
  if (!playgroundOn(config)) return;
  for (const m of devnetModules(config)) {
    if (!plugins.forChain(m.follows.chain)) {
      throw new ConfigError(`devnet.chains has ${m.name}, but no loaded plugin serves it: add "${m.plugin}" to plugins`);
    }
  }
}

export interface Playground {
  chains: ChainSettings[];
  stop(): Promise<void>;
}

/**
 * Starts every chain of `devnet.chains` (the process that indexes them runs them). A chain whose
 * engine starts empty (litesvm, @ton/sandbox, chopsticks keep no state) is a new chain: its
 * previous index is forgotten, so the indexer follows it from block 0 instead of stopping at
 * `genesis_changed`; deposits already recorded stay in the history.
 */
export async function startPlayground(config: WalletdConfig, logger: Logger, db: Db): Promise<Playground> {
  const local = await startLocalChains(config, logger);
  try {
    for (const key of local.fresh) await forgetChain(db, key);
  } catch (err) {
    await local.stop();
    throw err;
  }
  return local;
}
