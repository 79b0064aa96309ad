import { existsSync } from 'node:fs';
import { type ChainSettings, ConfigError, type Db, type Logger, type PluginRegistry, type WalletdConfig } from '@walletd/core';
import { forgetChain } from '@walletd/indexer';
import { devnetChain, devnetInfoFile, readDevnetInfo, startDevnet } from './devnet';
import { stopWithin } from './stopWithin';
import { OFFERED_LOCAL_CHAINS, localChainFile, localChainSettings, localNames, readLocalChainInfo, startLocalChains } from './localChains';

/** The playground runs when no chain is configured and the devnet is on (the default). */
export const playgroundOn = (config: WalletdConfig) => config.chains.length === 0 && config.devnet.enabled;

/**
 * The local chains a running playground describes (its info files), for the roles and commands
 * that do not run them: the API's assets and reads, `walletd dev fund`, `walletd indexer rescan`.
 */
export function knownPlaygroundChains(config: WalletdConfig): ChainSettings[] {
  if (!playgroundOn(config)) return config.chains;
  const chains: ChainSettings[] = [];
  if (config.devnet.chains.includes('evm') && existsSync(devnetInfoFile(config.dataDir))) {
    chains.push(devnetChain(readDevnetInfo(config.dataDir)));
  }
  for (const name of localNames(config)) {
    if (existsSync(localChainFile(config.dataDir, name))) chains.push(localChainSettings(readLocalChainInfo(config.dataDir, name)));
  }
  return chains;
}

const PLUGIN_OF: Record<string, string> = {
  solana: '@walletd/plugin-solana',
  ton: '@walletd/plugin-ton',
  polkadot: '@walletd/plugin-polkadot',
  bitcoin: '@walletd/plugin-utxo',
};

/** A local chain whose plugin is not loaded could be run but never followed: refused before anything starts. */
export function checkPlaygroundPlugins(config: WalletdConfig, plugins: PluginRegistry): void {
  if (!playgroundOn(config)) return;
  for (const name of localNames(config)) {
    if (!OFFERED_LOCAL_CHAINS.includes(name)) {
      throw new ConfigError(
        `devnet.chains: ${name} has no local engine in this build yet (offered: evm, ${OFFERED_LOCAL_CHAINS.join(', ')})`,
      );
    }
    if (!plugins.forChain(name)) {
      throw new ConfigError(`devnet.chains has ${name}, but no loaded plugin serves it: add "${PLUGIN_OF[name]}" to plugins`);
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
  const evm = config.devnet.chains.includes('evm')
    ? await startDevnet({ dataDir: config.dataDir, port: config.devnet.port, logger })
    : undefined;
  try {
    const local = await startLocalChains(config, logger);
    try {
      for (const key of local.fresh) await forgetChain(db, key);
    } catch (err) {
      await local.stop();
      throw err;
    }
    return {
      chains: [...(evm ? [evm.chain] : []), ...local.chains],
      stop: async () => {
        await local.stop();
        if (evm) await stopWithin(logger, 'evm', () => evm.stop());
      },
    };
  } catch (err) {
    await evm?.stop().catch(() => undefined);
    throw err;
  }
}
