import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BaseError, type ChainSettings, ConfigError, type Logger, type WalletdConfig } from '@walletd/core';
import type { LocalChain, LocalChainInfo, LocalChainModule } from '@walletd/devchains/dist/localChain';
import { LOCAL_CHAIN_MODULES, localChainModule } from '@walletd/devchains/dist/localChainModules';
import { stopWithin } from './stopWithin';

/**
 * The local chains of `devnet.chains`, each a module of @walletd/devchains (which knows what each
 * is), run by the walletd process that indexes them. Each writes what it is
 * (`<dataDir>/devchains/<name>.json`) so the other roles and `walletd dev fund` find it.
 */
export const localChainFile = (dataDir: string, name: string) => join(dataDir, 'devchains', `${name}.json`);

/** The modules `devnet.chains` names, in its order; a name no module has stops start-up. */
export function devnetModules(config: WalletdConfig): LocalChainModule[] {
  return config.devnet.chains.map((name) => {
    const m = localChainModule(name);
    if (!m) {
      throw new ConfigError(
        `devnet.chains: ${name} has no local engine in this build (offered: ${LOCAL_CHAIN_MODULES.map((x) => x.name).join(', ')})`,
      );
    }
    return m;
  });
}

export const localPort = (config: WalletdConfig, m: LocalChainModule) => config.devnet.ports[m.name] ?? m.defaultPort(config.devnet);

/** How the indexer follows a local chain. */
export function localChainSettings(info: LocalChainInfo): ChainSettings {
  return {
    chain: info.chain,
    network: info.network,
    rpcUrl: info.rpcUrl,
    ...info.settings,
    tokens: info.tokens.map((t) => ({ ...t })),
  };
}

export function readLocalChainInfo(dataDir: string, name: string): LocalChainInfo {
  const file = localChainFile(dataDir, name);
  if (!existsSync(file)) {
    throw new BaseError(
      'devchain_failed',
      `no local ${name} chain found in ${dataDir}: start walletd (npm start) with "${name}" in devnet.chains first`,
    );
  }
  return JSON.parse(readFileSync(file, 'utf8')) as LocalChainInfo;
}

export interface LocalChains {
  chains: ChainSettings[];
  /** Chains whose engine started empty: their previous index must be forgotten. */
  fresh: { chain: string; network: string }[];
  stop(): Promise<void>;
}

/** Starts each local chain of `devnet.chains`; one that fails stops those already started. */
export async function startLocalChains(config: WalletdConfig, logger: Logger): Promise<LocalChains> {
  const started: { name: string; chain: LocalChain }[] = [];
  // All at once, each bounded: one slow engine neither delays nor blocks the others' stops.
  const stop = async () => {
    await Promise.all(
      started.map(async (s) => {
        let kept = false;
        await stopWithin(logger, s.name, async () => {
          kept = (await s.chain.stop()) === 'kept';
        });
        // An engine left running for another walletd process is still what the file says.
        if (!kept) rmSync(localChainFile(config.dataDir, s.name), { force: true });
      }),
    );
  };
  try {
    for (const m of devnetModules(config)) {
      const chain = await m.start({ port: localPort(config, m), dataDir: config.dataDir, logger });
      started.push({ name: m.name, chain });
      mkdirSync(join(config.dataDir, 'devchains'), { recursive: true });
      writeFileSync(localChainFile(config.dataDir, m.name), `${JSON.stringify(chain.info, null, 2)}\n`);
      logger.info({ rpcUrl: chain.info.rpcUrl }, `local chain ${chain.info.chain}/${chain.info.network} running (${m.name})`);
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    chains: started.map((s) => localChainSettings(s.chain.info)),
    fresh: started.filter((s) => s.chain.fresh).map((s) => ({ chain: s.chain.info.chain, network: s.chain.info.network })),
    stop,
  };
}
