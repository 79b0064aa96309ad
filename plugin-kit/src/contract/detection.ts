import type { AssetRef, Chain } from '../chains';
import type { Finality } from './chainDefinition';

/** Addresses the company watches, in the plugin's match form (lowercase hex on EVM). */
export interface WatchedAddresses {
  has(matchKey: string): boolean;
  /**
   * For match forms that are lowercase hex (UTXO output scripts): `has(hex(bytes[start..end)))`
   * without building the string or a view (`start`/`end` default to the whole array). May say
   * yes for an unwatched key (never no for a watched one); the indexer matches exact keys before
   * recording.
   */
  hasBytes?(bytes: Uint8Array, start?: number, end?: number): boolean;
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
  /**
   * The block header's time, seconds since the epoch, where the plugin reads it (optional): the
   * indexer's metrics of the tip's age and of the time from block to `deposit.detected`.
   */
  timestamp?: number;
}

/**
 * One incoming transfer to a watched address: compact, amounts in base units. Unique by
 * (chain, network, txHash, eventIndex); `eventIndex` is an ordinal within the transaction that
 * does not change when the transaction is mined again in another block (after a reorg).
 */
export interface DetectedTransfer {
  txHash: string;
  /**
   * The transfer's transaction identity where a hash is not unique on the chain (Polkadot:
   * `<block number>-<extrinsic hash>`); unique by (chain, network, txKey ?? txHash, eventIndex). It
   * must determine what the transfer is: the store re-attaches a row seen again under its identity;
   * seen again with other content (amount, asset, recipient: the same signature executed on another
   * fork) it retracts the stored one (`deposit.rejected` `reorg`) and announces the new content, so
   * a key another fork can give to another transfer (a position in a block) only churns events.
   */
  txKey?: string;
  eventIndex: number;
  /** EVM log index in the block, or the vout on UTXO chains. */
  logIndex?: number;
  from?: string;
  /**
   * Match form of the sender, on account chains (the form `toKey` has). A transfer whose sender is
   * an address of the recipient's own wallet is an internal movement: the store never records or
   * announces it as a deposit, whatever transaction carries it.
   */
  fromKey?: string;
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

/**
 * What the block's own records say an address's balance of a token changed by: the net of every
 * transfer of that token in and out of it in the block. Reported for each (address, token) a
 * transfer credits, so the follower can hold credits the node's balances do not bear out
 * (fee-on-transfer and rebasing tokens log more than arrives; `ChainPlugin.checkBalances`).
 */
export interface TokenBalanceChange {
  /** Match form of the credited address. */
  toKey: string;
  assetKey: string;
  /** Base units; negative when more left than arrived. */
  delta: bigint;
}

export interface DetectResult {
  block: BlockRef;
  transfers: DetectedTransfer[];
  /** Plugins with `checkBalances`: one entry per (address, token) credited in the block. */
  balanceChanges?: TokenBalanceChange[];
}

/** The pure detector a worker thread runs: bytes in, compact transfers out; no I/O, deterministic. */
export type DetectFn = (raw: Uint8Array, ctx: DetectContext) => DetectResult;

/**
 * Chains with a public mempool (bitcoin, dogecoin): the detect module also exports
 * `detectMempool`, run in a worker on the transactions `ChainReader.mempool` fetched.
 */
export type DetectMempoolFn = (raw: Uint8Array, ctx: DetectContext) => DetectedTransfer[];

/** The node's mempool: every transaction id in it, and the raw form of those not yet seen. */
export interface MempoolSnapshot {
  txids: string[];
  /** What `detectMempool` reads; only the transactions not in `seen`. */
  raw: Uint8Array;
}

/** A detected transfer waiting to be final, as `confirm` sees it. */
export interface PendingTransfer {
  id: number;
  /** null: not in a block (a mempool detection, or detached by a reorg). */
  blockNumber: bigint | null;
}

export interface ConfirmInput {
  pending: PendingTransfer[];
  head: bigint;
  /** The node's finalized height, when the network's finality rule uses it. */
  finalized: bigint | null;
  threshold: number;
  finality: Finality;
}

/** What `confirm` decides for each pending transfer it does not leave pending. */
export interface ConfirmDecision {
  id: number;
  status: 'confirmed' | 'rejected';
  confirmations: number;
  reason?: 'reorg' | 'mempool_dropped';
}

/** Pure: pending transfers and the chain's head/finality in, decisions out. */
export type ConfirmFn = (input: ConfirmInput) => ConfirmDecision[];
