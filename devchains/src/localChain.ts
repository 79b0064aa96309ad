import type { Logger } from '@walletd/core';

/**
 * One local chain of the playground (`walletd serve` with `devnet.chains`): an adapter over a real
 * engine on loopback, described the way chains[] describes a node, plus how to fund an address on it.
 */
export interface LocalChainInfo {
  chain: string;
  network: string;
  rpcUrl: string;
  /** The engine's test tokens, as chains[].tokens lists them. */
  tokens: { contract: string; symbol: string; decimals: number }[];
  /** Block 0's identity when this run of the engine began: a new one means a new chain (nothing persisted). */
  genesis: string;
  /** The pid of the walletd process running the engine in-process (null: an engine of its own, e.g. litecoind). */
  pid: number | null;
  /** Indexer settings suited to the engine (confirmations, poll interval). */
  settings: { confirmations?: number; pollIntervalMs: number; startBlock: number };
}

export interface LocalChain {
  info: LocalChainInfo;
  /** True when the engine starts empty each time (its state could not be restored). */
  fresh: boolean;
  /** Stops the engine; 'kept' when it goes on for another walletd process (its info stays valid). */
  // biome-ignore lint/suspicious/noConfusingVoidType: most engines' stop resolves to nothing; the EVM devnet's says which.
  stop(): Promise<void | 'stopped' | 'kept'>;
}

/** What `walletd dev fund` asks of a running local chain: native coin, or a token by symbol, in base units. */
export interface FundRequest {
  /** The address as walletd issued it. */
  address: string;
  amount: bigint;
  token?: string;
}

/** Where a local chain runs: its port, the service's data directory, the service's logger. */
export interface LocalChainStart {
  port: number;
  dataDir: string;
  logger: Logger;
}

/**
 * One kind of local chain, as `walletd serve` and `walletd dev fund` use it without naming it:
 * its name in `devnet.chains`, the network it is followed as, the plugin that must be loaded to
 * follow it, and how to start it and fund an address on it. Loading this description loads no
 * engine: `start` and `fund` import theirs when called.
 */
export interface LocalChainModule {
  /** Its entry in `devnet.chains` and `devnet.ports`. */
  name: string;
  /** The chain and network walletd follows it as (what its `LocalChainInfo` says). */
  follows: { chain: string; network: string };
  /** The plugin package that serves `follows.chain`. */
  plugin: string;
  /** Its test tokens' symbols (`walletd dev fund --token`). */
  tokens: string[];
  /** Its port when `devnet.ports` has none (`devnet` is the config's section: the EVM devnet keeps `devnet.port`). */
  defaultPort(devnet: { port: number }): number;
  start(options: LocalChainStart): Promise<LocalChain>;
  /** Pays `request` on the running chain `info` describes; returns the transaction's id. */
  fund(info: LocalChainInfo, request: FundRequest): Promise<string>;
}
