import { BaseError } from '@walletd/core';
import { ChainHaltedError } from '../lease/chainHalt';
import { detectAt } from './detectAt';
import type { FollowerContext } from './followerContext';
import { type RecordedBlock, recordedBlocksBelow, rewindTo } from '../store/transferStore';

/** Rewinds to the same block, with no block indexed between them, before the chain is stopped. */
const MAX_REWINDS_IN_PLACE = 3;

/**
 * A rewind leaves the cursor on a block whose hash the node just confirmed. If the next block
 * does not link to it, the node's chain is inconsistent (a devnet restored badly: block 0 is not
 * block 1's parent) or it reorganised again in between. A busy chain can do that once or twice;
 * a third time in a row at the same block would rewind forever, so the chain stops with the
 * cause instead of spinning.
 */
export async function checkProgress(ctx: FollowerContext, height: bigint, parentHash: string, last: RecordedBlock | null): Promise<void> {
  const { lastRewind, rewindsInPlace, reader, key } = ctx;
  if (lastRewind === null || last === null || lastRewind !== last.height) return;
  if (rewindsInPlace < MAX_REWINDS_IN_PLACE) return;
  // Only with no height between them can the node's own two blocks be said not to link.
  const below = lastRewind === height - 1n ? await reader.blockHash(height - 1n) : parentHash;
  if (below !== parentHash)
    throw new ChainHaltedError(
      key,
      'blocks_do_not_link',
      `the node's block ${height} has parent ${parentHash}, but its block ${height - 1n} is ${below}; the node's chain is inconsistent (restore or resync it)`,
    );
  throw new ChainHaltedError(
    key,
    'rewind_no_progress',
    `rewound to block ${lastRewind} ${rewindsInPlace} times in a row without indexing a block`,
  );
}

/**
 * Walks back through the recorded blocks (heights without a block were never recorded) until our
 * hash equals the node's, within the window. None equal: before calling it a reorg deeper than
 * the window, the node's answer for the latest of them is checked for its height (a node
 * answering every height with another block differs at every hash).
 */
export async function handleReorg(ctx: FollowerContext, height: bigint): Promise<void> {
  const { stats, m, labels, db, key, window, reader, fence, logger } = ctx;
  stats.reorgs++;
  m?.reorgs.inc(labels);
  const recorded = await recordedBlocksBelow(db, key, height, height - BigInt(window));
  for (const { height: h, hash: ours } of recorded) {
    if (ours === (await reader.blockHash(h))) {
      const { detached, retractedTransfers, withdrawals } = await rewindTo(db, key, h, ours, fence, height);
      ctx.rewindsInPlace = ctx.lastRewind === h ? ctx.rewindsInPlace + 1 : 1;
      ctx.lastRewind = h;
      logger.warn({ from: height.toString(), ancestor: h.toString(), detached }, 'reorg: rewound to the common ancestor');
      if (retractedTransfers.length + withdrawals.length > 0) {
        // Told to the operator four ways: this line, the metric, the audit row (`chain.deep_reorg`,
        // written by rewindTo) and the Overview's banner that reads it.
        m?.deepReorgRetractions.inc({ ...labels, kind: 'deposit' }, retractedTransfers.length);
        m?.deepReorgRetractions.inc({ ...labels, kind: 'withdrawal' }, withdrawals.length);
        logger.error(
          { from: height.toString(), ancestor: h.toString(), retractedTransfers, withdrawals },
          'reorg deeper than the confirmation threshold took CONFIRMED records out of their blocks: deposits not mined again are retracted (deposit.rejected, previousStatus confirmed), withdrawals are back to broadcast',
        );
      }
      return;
    }
  }
  if (recorded[0]) await detectAt(ctx, recorded[0].height);
  throw new BaseError('internal', `reorg deeper than the ${window}-block window at height ${height}; raise reorgWindow or rescan`);
}
