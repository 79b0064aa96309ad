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
  stop(): Promise<void>;
}

/** What `walletd dev fund` asks of a running local chain: native coin, or a token by symbol, in base units. */
export interface FundRequest {
  address: string;
  amount: bigint;
  token?: string;
}
