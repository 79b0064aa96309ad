import type { AssetRef, Chain } from '../chains';

/**
 * The chain plugin contract, version 1. The server and the indexer know chains only through it,
 * so a chain team ships a plugin without touching them. Registration (`registerPlugins`) checks
 * `apiVersion` and the chains served on the main thread at start-up.
 *
 * Status: `detect`, key work and the network table are final; the read client, `confirm` and the
 * withdrawal verbs (`build`, `broadcast`, `verify`) are typed here and implemented by the indexer
 * and withdrawal work that follows (see plugins/README.md).
 */
export const PLUGIN_API_VERSION = 1 as const;

export type FinalityRule = 'confirmations' | 'finalized-tag';

export interface NetworkDefinition {
  network: string;
  /** EVM chain id, where the chain has one. */
  chainId?: number;
  /** Confirmations after which a deposit is final, unless the operator overrides it. */
  defaultConfirmations: number;
  finality: FinalityRule;
}

export interface ChainDefinition {
  chain: Chain;
  networks: NetworkDefinition[];
}

/** Addresses the company watches, in the plugin's match form (lowercase hex on EVM). */
export interface WatchedAddresses {
  has(matchKey: string): boolean;
}

/** A token the operator allow-listed: only these contracts are ever credited. */
export interface TokenDefinition extends AssetRef {
  /** The contract in match form. */
  matchKey: string;
}

export interface DetectContext {
  chain: Chain;
  network: string;
  native: AssetRef;
  /** By contract match key. */
  tokens: ReadonlyMap<string, TokenDefinition>;
  watched: WatchedAddresses;
}

export interface BlockRef {
  number: bigint;
  hash: string;
  parentHash: string;
}

/**
 * One incoming transfer to a watched address: compact, amounts in base units. Unique by
 * (chain, network, txHash, eventIndex); `eventIndex` is an ordinal within the transaction that
 * does not change when the transaction is mined again in another block (after a reorg).
 */
export interface DetectedTransfer {
  txHash: string;
  eventIndex: number;
  /** EVM log index in the block, or the vout on UTXO chains. */
  logIndex?: number;
  from?: string;
  /** Display form of the recipient. */
  to: string;
  /** Match form of the recipient (the key of `watched`). */
  toKey: string;
  assetKey: string;
  amount: bigint;
  eventType: string;
  /** Chain-specific fields carried into the event (destinationTag, memo, inputs/outputs). */
  extra?: Record<string, unknown>;
}

export interface DetectResult {
  block: BlockRef;
  transfers: DetectedTransfer[];
}

/** The pure detector a worker thread runs: bytes in, compact transfers out; no I/O, deterministic. */
export type DetectFn = (raw: Uint8Array, ctx: DetectContext) => DetectResult;

export interface DerivedAddress {
  /** Display form (EIP-55 checksum on EVM). */
  address: string;
  /** Match form. */
  matchKey: string;
  path: string;
}

/** Node access for one chain/network; the follower calls it on the main thread. */
export interface ChainReader {
  /** Current head height. */
  head(): Promise<bigint>;
  /** The raw block at a height, in the form this plugin's `detect` reads. */
  fetchBlock(height: bigint): Promise<Uint8Array>;
  /** Hash of the block at a height on the node's current chain (reorg ancestor search); null if none. */
  blockHash(height: bigint): Promise<string | null>;
  /** The node's finalized height, on chains that have one (the `finalized` tag on EVM). */
  finalized?(): Promise<bigint | null>;
}

export interface ReaderOptions {
  rpcUrl: string;
  timeoutMs?: number;
}

export interface ChainPlugin {
  apiVersion: typeof PLUGIN_API_VERSION;
  name: string;
  chains: ChainDefinition[];
  /** Absolute path of a module whose `detect` export is this plugin's DetectFn (imported by workers). */
  detectModule: string;
  validateAddress(chain: Chain, network: string, address: string): boolean;
  /** The match form of a valid address; throws InvalidAddress otherwise. */
  matchKey(chain: Chain, network: string, address: string): string;
  deriveAddress(chain: Chain, network: string, seed: Uint8Array, index: number): DerivedAddress;
  createReader(chain: Chain, network: string, options: ReaderOptions): ChainReader;
}
