import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChainSettings, DevnetChain, Logger, WalletdConfig } from '@walletd/core';
import type { LocalChain, LocalChainInfo } from '@walletd/devchains';
import { stopWithin } from './stopWithin';

/**
 * The local chains beside the EVM devnet (`devnet.chains`): adapters over real engines from
 * @walletd/devchains, run by the walletd process that indexes them. Each writes what it is
 * (`<dataDir>/devchains/<name>.json`) so the other roles and `walletd dev fund` find it.
 */
export type LocalChainName = Exclude<DevnetChain, 'evm'>;

/** Fixed loopback ports unless `devnet.ports` says otherwise: the node URL stays the same across restarts. */
export const DEFAULT_LOCAL_PORTS: Record<LocalChainName, number> = { solana: 58899, ton: 58081, polkadot: 58944, bitcoin: 58332 };

/** The local chains this build runs. */
export const OFFERED_LOCAL_CHAINS: readonly LocalChainName[] = ['solana', 'ton', 'polkadot', 'bitcoin'];

/** litecoind's datadir (the regtest chain and its wallet), kept across restarts; removing it resets the chain. */
export const litecoindDir = (dataDir: string) => join(dataDir, 'devchains', 'litecoind');

export const localChainFile = (dataDir: string, name: LocalChainName) => join(dataDir, 'devchains', `${name}.json`);

export const localNames = (config: WalletdConfig): LocalChainName[] => config.devnet.chains.filter((c): c is LocalChainName => c !== 'evm');

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

export function readLocalChainInfo(dataDir: string, name: LocalChainName): LocalChainInfo {
  const file = localChainFile(dataDir, name);
  if (!existsSync(file)) {
    throw new Error(`no local ${name} chain found in ${dataDir}: start walletd (npm start) with "${name}" in devnet.chains first`);
  }
  return JSON.parse(readFileSync(file, 'utf8')) as LocalChainInfo;
}

async function startOne(name: LocalChainName, port: number, dataDir: string): Promise<LocalChain> {
  const devchains = await import('@walletd/devchains');
  switch (name) {
    case 'solana':
      return devchains.startLocalSolana({ port });
    case 'ton':
      return devchains.startLocalTon({ port });
    case 'polkadot':
      return devchains.startLocalPolkadot({ port });
    case 'bitcoin':
      return devchains.startLocalBitcoin({ port, datadir: litecoindDir(dataDir) });
    default:
      throw new Error(`devnet.chains: ${name} has no local engine in this build`);
  }
}

export interface LocalChains {
  chains: ChainSettings[];
  /** Chains whose engine started empty: their previous index must be forgotten. */
  fresh: { chain: string; network: string }[];
  stop(): Promise<void>;
}

/** Starts each local chain of `devnet.chains`; one that fails stops those already started. */
export async function startLocalChains(config: WalletdConfig, logger: Logger): Promise<LocalChains> {
  const started: { name: LocalChainName; chain: LocalChain }[] = [];
  // All at once, each bounded: one slow engine neither delays nor blocks the others' stops.
  const stop = async () => {
    await Promise.all(
      started.map(async (s) => {
        await stopWithin(logger, s.name, () => s.chain.stop());
        rmSync(localChainFile(config.dataDir, s.name), { force: true });
      }),
    );
  };
  try {
    for (const name of localNames(config)) {
      const port = config.devnet.ports[name] ?? DEFAULT_LOCAL_PORTS[name];
      const chain = await startOne(name, port, config.dataDir);
      started.push({ name, chain });
      mkdirSync(join(config.dataDir, 'devchains'), { recursive: true });
      writeFileSync(localChainFile(config.dataDir, name), `${JSON.stringify(chain.info, null, 2)}\n`);
      logger.info({ rpcUrl: chain.info.rpcUrl }, `local chain ${chain.info.chain}/${chain.info.network} running (${name})`);
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
