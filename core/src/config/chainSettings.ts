/** The `chains[]` entries of the configuration: one followed chain/network each. */
export interface TokenSettings {
  contract: string;
  symbol: string;
  decimals: number;
}

/** A local chain's name in `devnet.chains` (the modules of @walletd/devchains say which exist). */
export type DevnetChain = string;

/** One followed chain/network. Only allow-listed tokens are ever credited. */
export interface ChainSettings {
  chain: string;
  network: string;
  rpcUrl: string;
  /** Deadline of one node call (default 15000 ms); the claims of migration 007 outlast it. */
  rpcTimeoutMs?: number;
  /** Further attempts of an idempotent read after a transport failure (default 2); a broadcast is never repeated. */
  rpcRetries?: number;
  /**
   * The most bytes one node answer may have (default 64 MiB, above the largest real block of any
   * supported chain): past it the connection is closed and the call fails with `node_error`.
   */
  maxResponseBytes?: number;
  /**
   * EVM: 'trace' (default) reads every block's call traces and credits native value sent by
   * contracts; a node that refuses traces stops the chain. 'off' reads no traces: such value is not seen.
   * Tron: the `internal_transactions` of each transaction info, which java-tron keeps with
   * `vm.saveInternalTx = true` (walletd cannot tell when the node lacks it).
   */
  internalTransfers?: 'trace' | 'off';
  /** Overrides the plugin's default threshold. */
  confirmations?: number;
  /** 'finalized': a deposit is final once the node's finalized block covers it (EVM `finalized` tag). */
  finality?: 'confirmations' | 'finalized';
  pollIntervalMs?: number;
  /** Where a first start begins: a height, or the current head ('latest', the default). */
  startBlock?: number | 'latest';
  /** How many recent blocks are kept to find the common ancestor of a reorg. */
  reorgWindow?: number;
  /** Overrides `indexer.maxLagBlocks` for this chain (block times differ by chain). */
  maxLagBlocks?: number;
  tokens?: TokenSettings[];
  /**
   * A network no plugin ships, served by the plugin of this family (`evm`): the entry declares it
   * (docs/guide/chains.md, "EVM networks by configuration"). With it, `chainId`, `nativeSymbol`
   * and `confirmations` are required.
   */
  family?: 'evm';
  /** The chain id the node must report (`eth_chainId`); another stops the chain (`chain_id_mismatch`). */
  chainId?: number;
  nativeSymbol?: string;
  /** Decimals of the native asset's base unit (default 18). */
  nativeDecimals?: number;
  /** A test network carries no real value (default false). */
  testnet?: boolean;
  /** The network's block time, a hint: the default `pollIntervalMs` when that is not set. */
  blockTimeMs?: number;
  /** Where people look a transaction up (`https://basescan.org`), shown as given. */
  explorerUrl?: string;
  /** Issue 46 §5, off unless set: speed up a payout still unconfirmed after some blocks. */
  autoBump?: AutoBumpSettings;
}

/**
 * Automatic speed-up of stuck payouts on one chain (EVM, bitcoin, dogecoin): a `broadcast`
 * withdrawal whose latest transaction has waited `afterBlocks` indexed blocks is sped up with fees
 * `factor` times the latest (at least the replacement rule), never above the cap; then again
 * `afterBlocks` later, until the cap is reached.
 */
export interface AutoBumpSettings {
  afterBlocks: number;
  /** 1.1 to 10 (read to three decimals): a multiplier of the fees, not an amount. */
  factor: number;
  /** EVM: the most a bumped transaction may pay per gas, wei (decimal string). */
  maxFeePerGas?: string;
  /** Bitcoin family: the most a bumped transaction may pay per vbyte, base units (decimal string). */
  maxFeeRate?: string;
}
