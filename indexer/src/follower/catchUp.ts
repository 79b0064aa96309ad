import { withSpan } from '@walletd/core';
import { blockLinks } from './blockSpans';
import { observeBlockTimes } from './blockTimes';
import { type Detected, detectAt } from './detectAt';
import type { FollowerContext } from './followerContext';
import { checkProgress, handleReorg } from './reorgCheck';
import { windowSize } from './windowSize';
import { type RecordedBlock, advanceCursor, lastRecordedBlock, persistBlocks, readCursor } from '../store/transferStore';

/**
 * Records consecutive detected blocks (each one's parent already checked), in height order, in
 * one transaction; `cursorTo`: a height without a block stepped over after the last of them.
 */
async function recordBlocks(ctx: FollowerContext, results: Detected[], cursorTo: bigint | null): Promise<void> {
  const { db, key, assets, window, stats, fence, m, labels, logger } = ctx;
  // Traces on: the write links to each block's span; the events it records are its children.
  const attributes = { 'walletd.blocks': results.length, 'walletd.block.height': (results[0] as Detected).block.number.toString() };
  const detected = await withSpan('indexer.persist', { attributes, links: blockLinks(results) }, () =>
    persistBlocks(db, key, results, assets.byKey, window, stats.head, { fence, cursorTo: cursorTo ?? undefined }),
  );
  ctx.lastRewind = null;
  ctx.rewindsInPlace = 0;
  const top = (results[results.length - 1] as Detected).block.number;
  stats.indexed = cursorTo !== null && cursorTo > top ? cursorTo : top;
  stats.blocks += results.length;
  m?.blocksIndexed.inc(labels, results.length);
  const total = detected.reduce((a, b) => a + b, 0);
  if (total) m?.deposits.inc({ ...labels, type: 'deposit.detected' }, total);
  observeBlockTimes(ctx, results, detected);
  ctx.report();
  results.forEach((r, i) => {
    if (detected[i]) logger.info({ height: r.block.number.toString(), detected: detected[i] }, 'deposits detected');
  });
}

type InFlight = { height: bigint; result: Promise<Detected | null>; settled: boolean; failed: boolean };
/** Lets work past a reorg or a stop finish unobserved (no unhandled rejection, no pool task cut). */
async function discard(inFlight: InFlight[]): Promise<void> {
  await Promise.allSettled(inFlight.splice(0).map((f) => f.result));
}

/**
 * Heights after `from` up to `head`: up to `depth` of them fetched and detected at once (the
 * pool's threads parse while the main thread fetches and writes), taken strictly in height
 * order. Each block's parent is checked against the last recorded block before anything is
 * written (heights without a block are stepped over, never recorded); the blocks already detected
 * at the front of the window are written together, in one transaction. On a mismatch, the blocks
 * before it are written, everything in flight is dropped, the follower rewinds and starts again
 * after the common ancestor. false: stopped.
 */
export async function catchUp(ctx: FollowerContext, from: bigint, head: bigint, lastRecorded: RecordedBlock | null): Promise<boolean> {
  const { db, key, fence, deps, stats } = ctx;
  let last = lastRecorded;
  const inFlight: InFlight[] = [];
  let next = from + 1n;
  let refreshed: Promise<void> | null = null;
  /** The highest height stepped over and not yet written to the cursor. */
  let skipped: bigint | null = null;
  const flushSkipped = async () => {
    if (skipped === null) return;
    await advanceCursor(db, key, skipped, last?.hash ?? null, fence);
    skipped = null;
  };
  /**
   * Tops the window up to `depth` heights. Called before each write as well as after it: the node
   * and the pool keep working on the next heights while a group is written (refilling only after
   * the write left them idle for a transaction's round trips per group).
   */
  const fill = () => {
    const size = windowSize(ctx);
    while (inFlight.length < size && next <= head) {
      const height = next++;
      // Every height of this catch-up is at most `head`, a block the node had when the round read
      // it: a payment in it went to an address created before that. One refresh after the head
      // was read (before the first fetch) watches them all; one per fill cost a query per write.
      refreshed ??= ctx.refreshWatched();
      const entry: InFlight = { height, result: refreshed.then(() => detectAt(ctx, height)), settled: false, failed: false };
      entry.result.then(
        () => {
          entry.settled = true;
        },
        () => {
          entry.settled = true;
          entry.failed = true;
        },
      );
      inFlight.push(entry);
    }
  };
  try {
    for (;;) {
      if (deps.shouldStop?.()) {
        await discard(inFlight);
        await flushSkipped();
        return false;
      }
      fill();
      const front = inFlight[0];
      if (!front) break;
      await front.result;
      // The detected prefix of the window, in order, up to the first block that does not link
      // (or that failed: what came before it is written, then its error ends the round).
      const group: Detected[] = [];
      let tip = last;
      let mismatch: { height: bigint; parentHash: string } | null = null;
      while (inFlight[0] && (group.length === 0 || (inFlight[0].settled && !inFlight[0].failed))) {
        const item = inFlight.shift() as InFlight;
        const result = await item.result;
        if (result === null) {
          skipped = item.height;
          if (group.length === 0) stats.indexed = item.height;
          continue;
        }
        if (tip !== null && result.block.parentHash !== tip.hash) {
          mismatch = { height: item.height, parentHash: result.block.parentHash };
          break;
        }
        group.push(result);
        tip = { height: result.block.number, hash: result.block.hash };
        if (skipped !== null && skipped < result.block.number) skipped = null;
      }
      if (group.length > 0) {
        // Past a mismatch everything in flight is dropped: nothing more is sent off.
        if (!mismatch) fill();
        await recordBlocks(ctx, group, skipped);
        last = tip;
        skipped = null;
      }
      if (mismatch) {
        await discard(inFlight);
        await checkProgress(ctx, mismatch.height, mismatch.parentHash, last);
        await handleReorg(ctx, mismatch.height);
        skipped = null;
        const back = await readCursor(db, key);
        next = (back ? back.height : mismatch.height - 1n) + 1n;
        last = await lastRecordedBlock(db, key);
      }
    }
    await flushSkipped();
    return true;
  } finally {
    await discard(inFlight);
  }
}
