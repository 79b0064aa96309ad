import type { AssetRef } from '../chains';
import type { MempoolSnapshot } from './detection';

/** What an address holds: `spendable` leaves the chain's minimum (XRP reserve, Polkadot existential deposit, Solana rent) in place. */
export interface Balance {
  total: bigint;
  spendable: bigint;
}

/**
 * Node access for one chain/network, created once per process per chain/network (the service
 * caches it) and closed at shutdown; the follower calls it on the main thread.
 */
export interface ChainReader {
  /** Current head height. */
  head(): Promise<bigint>;
  /**
   * The raw block at a height, in the form this plugin's `detect` reads; null when the height has
   * no block (a Solana skipped slot): the follower steps over it and checks the next block's
   * parent against the last recorded one.
   */
  fetchBlock(height: bigint): Promise<Uint8Array | null>;
  /** Hash of the block at a height on the node's current chain (reorg ancestor search); null if none. */
  blockHash(height: bigint): Promise<string | null>;
  /** The node's finalized height, on chains that have one (the `finalized` tag on EVM). */
  finalized?(): Promise<bigint | null>;
  /**
   * The network's chain id as a decimal string, on chains that have one (EVM `eth_chainId`). The
   * indexer records it with block 0's hash and stops the chain if the node's changes.
   */
  chainId?(): Promise<string>;
  /** On-chain balance of an address in base units (the API's on-chain check). */
  getBalance(address: string, asset: AssetRef): Promise<Balance>;
  /**
   * Chains with a public mempool: a snapshot, fetching only transactions not in `seen`. Deposits
   * seen there are detected with 0 confirmations; one that leaves the mempool without being mined
   * is rejected with `mempool_dropped`.
   */
  mempool?(seen: ReadonlySet<string>): Promise<MempoolSnapshot>;
  /** Releases connections (WebSocket clients); called once at shutdown. */
  close?(): Promise<void>;
}

export interface ReaderOptions {
  rpcUrl: string;
  /** Deadline of one node call. */
  timeoutMs?: number;
  /** Further attempts of an idempotent read after a transport failure; never of a broadcast. */
  retries?: number;
  /** The most bytes one node answer may have (`chains[].maxResponseBytes`; core's default 64 MiB). */
  maxResponseBytes?: number;
  /** Who the node serves ("ethereum/mainnet"), for the reader's messages; never the URL. */
  name?: string;
  /** `chains[].internalTransfers`: whether native value moved by contracts is read (default `trace`). */
  internalTransfers?: 'trace' | 'off';
}

/** The reader options a configured chain asks for. */
export function readerOptionsFor(settings: {
  chain?: string;
  network?: string;
  rpcUrl: string;
  rpcTimeoutMs?: number;
  rpcRetries?: number;
  maxResponseBytes?: number;
  internalTransfers?: 'trace' | 'off';
}): ReaderOptions {
  return {
    rpcUrl: settings.rpcUrl,
    ...(settings.rpcTimeoutMs !== undefined ? { timeoutMs: settings.rpcTimeoutMs } : {}),
    ...(settings.rpcRetries !== undefined ? { retries: settings.rpcRetries } : {}),
    ...(settings.maxResponseBytes !== undefined ? { maxResponseBytes: settings.maxResponseBytes } : {}),
    ...(settings.chain !== undefined && settings.network !== undefined ? { name: `${settings.chain}/${settings.network}` } : {}),
    ...(settings.internalTransfers !== undefined ? { internalTransfers: settings.internalTransfers } : {}),
  };
}
