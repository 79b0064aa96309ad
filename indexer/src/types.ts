import type { DetectedTransfer } from '@walletd/core';
import type { Knex } from 'knex';

/**
 * The types more than one stage shares (indexer/README.md): here, so no stage imports another
 * only for a type (the two import circles of the flat layout were made of such imports).
 */

export interface ChainKey {
  chain: string;
  network: string;
}

/**
 * How far the follower has gone: `height` is the last height it dealt with (a block recorded, or a
 * height without a block stepped over); `hash` the last recorded block's at or below it.
 */
export interface Cursor {
  height: bigint;
  hash: string | null;
}

/**
 * A company address as the store matches transfers to it. Through a token account: its owner's id
 * and address, and `only_asset` the one asset it may be credited in.
 */
export type AddressRow = {
  id: number;
  match_key: string;
  address: string;
  wallet_id: number;
  company_id: number;
  only_asset: string | null;
};

/**
 * Runs first inside each of the follower's write transactions (made by lease/chainLease.ts): renews the lease by (holder,
 * epoch) and throws `LeaseLostError` when the row no longer names this holder and epoch. The
 * renewal locks the lease row, so a standby's takeover waits for the transaction or comes first
 * and makes it abort: nothing is written by an indexer that is no longer the leader.
 */
export type Fence = (trx: Knex.Transaction) => Promise<void>;

/** A transfer the follower records but never lets confirm by itself: why (the row's `reason`). */
export type HeldTransfer = DetectedTransfer & { held?: 'balance_mismatch' };

/** A follower's progress: the node's head and the last height indexed (the service reports it). */
export interface FollowerStats {
  head: bigint;
  indexed: bigint;
  blocks: number;
  reorgs: number;
}
