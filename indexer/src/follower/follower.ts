import { withSpan } from '@walletd/core';
import { catchUp } from './catchUp';
import { checkChainIdentity } from './chainIdentity';
import { confirmPending, finalizedHeight } from './confirmPending';
import { type FollowerDeps, createFollowerContext } from './followerContext';
import { probeNode } from './probeNode';
import { handleReorg } from './reorgCheck';
import { rescanFrom } from './rescan';
import { scanMempool } from './scanMempool';
import { lastRecordedBlock, readCursor, rejectDetached } from '../store/transferStore';
import type { ChainKey, FollowerStats } from '../types';
import { type TrackOutcome, trackWithdrawals } from './withdrawalTracker';

export { DEFAULT_PIPELINE_DEPTH } from './windowSize';
export type { FollowerStats } from '../types';
export type { FollowerDeps } from './followerContext';

export interface Follower {
  readonly key: ChainKey;
  /** One round of each loop, one after the other (`followRound`, then `trackWithdrawals`). */
  tick(): Promise<void>;
  /** Follows the chain to its head once: refresh watched addresses, index new blocks, confirm deposits. */
  followRound(): Promise<void>;
  /** Withdrawals of this chain through the plugin's `verify` (the indexer runs it in a loop of its own). */
  trackWithdrawals(): Promise<TrackOutcome>;
  /**
   * Re-reads blocks from a height (rescan): finds what was missed, emits nothing twice. Final
   * blocks are read up to the final height; past it only blocks the live follower recorded (same
   * hash), whose reorgs it handles. Returns the last height read and, when it stopped before the
   * head, the first it did not.
   */
  rescanFrom(height: bigint): Promise<{ to: bigint; stoppedAt: bigint | null }>;
  stats(): FollowerStats;
}

/**
 * One chain/network's follower. Its parts share one context (`followerContext.ts`): the pipelined
 * catch-up (`catchUp.ts`), reorg and progress checks (`reorgCheck.ts`), the mempool scan
 * (`scanMempool.ts`), confirmations (`confirmPending.ts`) and the rescan (`rescan.ts`).
 */
export function createFollower(deps: FollowerDeps): Follower {
  const ctx = createFollowerContext(deps);
  const { db, plugin, settings, fence, key, logger, reader, stats, m, labels, assets, threshold, finality, refreshWatched, report } = ctx;

  async function followToHead(): Promise<void> {
    // Nothing is read from a node that no longer serves the indexed chain.
    await checkChainIdentity(db, key, reader, fence, settings.chainId);
    // What the node must serve to read every deposit (EVM call traces), checked before any block.
    await probeNode(ctx);
    // The mempool is read before the blocks: a transaction that leaves it for a block is then in a
    // block this round indexes, never taken for dropped.
    const snapshot = reader.mempool ? await reader.mempool(ctx.mempoolSeen) : null;
    const head = await reader.head();
    stats.head = head;
    let cursor = await readCursor(db, key);
    if (!cursor) {
      const start = settings.startBlock === undefined || settings.startBlock === 'latest' ? head : BigInt(settings.startBlock);
      cursor = { height: start - 1n, hash: null };
    }
    // Lag is known as soon as the head is: a catch-up shows it before its first block is in.
    stats.indexed = cursor.height > 0n ? cursor.height : 0n;
    report();
    // A node behind our cursor (restarted, syncing, another backend) is not a reorg: wait for it.
    if (head < cursor.height) {
      logger.warn({ head: head.toString(), cursor: cursor.height.toString() }, 'node is behind the indexed height; waiting');
      return;
    }
    // A reorg to a chain of the same length (or shorter) brings no new block to check a parent
    // against: check that the last recorded block is still the node's.
    let last = await lastRecordedBlock(db, key);
    const underCursor = last === null ? null : await reader.blockHash(last.height);
    if (last !== null && underCursor !== null && underCursor !== last.hash) {
      await handleReorg(ctx, last.height + 1n);
      cursor = (await readCursor(db, key)) ?? cursor;
      last = await lastRecordedBlock(db, key);
    }
    if (!(await catchUp(ctx, cursor.height, head, last))) return;
    // At the head of the (new) chain, what a reorg detached and did not come back is retracted.
    // Every round, not only the one that saw the reorg: a crash in between leaves nothing pending.
    if (snapshot) await scanMempool(ctx, snapshot);
    const rejected = await rejectDetached(db, key, assets.byKey, snapshot ? new Set(snapshot.txids) : null, fence);
    if (rejected) {
      m?.deposits.inc({ ...labels, type: 'deposit.rejected' }, rejected);
      logger.warn({ rejected }, 'deposits retracted (reorg, or dropped from the mempool)');
    }
    const finalized = await finalizedHeight(ctx);
    const confirmed = await confirmPending(ctx, head, finalized);
    if (confirmed) m?.deposits.inc({ ...labels, type: 'deposit.confirmed' }, confirmed);
    report();
    if (confirmed) logger.info({ confirmed, head: head.toString() }, 'deposits confirmed');
  }

  /** In an `indexer.round` span (traces on): the blocks' fetch, detect and write are its children. */
  function followRound(): Promise<void> {
    return withSpan('indexer.round', { attributes: { 'walletd.chain': key.chain, 'walletd.network': key.network } }, async () => {
      await refreshWatched();
      await followToHead();
    });
  }

  /** Withdrawals by the same rule as deposits, against the node's head; in a loop of their own. */
  async function trackRound(): Promise<TrackOutcome> {
    // Never judged against a node that no longer serves the indexed chain.
    await checkChainIdentity(db, key, reader, fence, settings.chainId);
    const head = await reader.head();
    const finalized = await finalizedHeight(ctx);
    const tracked = await trackWithdrawals(db, logger, plugin, reader, key, { head, finalized, threshold, finality }, fence);
    if (tracked.broadcast + tracked.confirmed + tracked.rejected + tracked.resent > 0) logger.info({ ...tracked }, 'withdrawals tracked');
    return tracked;
  }

  return {
    key,
    stats: () => ({ ...stats }),
    followRound,
    trackWithdrawals: trackRound,
    async tick() {
      await followRound();
      await trackRound();
    },
    rescanFrom: (height: bigint) => rescanFrom(ctx, height),
  };
}
