import { checkChainIdentity } from './chainIdentity';
import { confirmPending, finalizedHeight } from './confirmPending';
import { detectAt } from './detectAt';
import type { FollowerContext } from './followerContext';
import { persistBlock, recordedBlocksBelow } from '../store/transferStore';

/** `Follower.rescanFrom`: re-reads blocks from a height, final ones and those the live follower recorded. */
export async function rescanFrom(ctx: FollowerContext, height: bigint): Promise<{ to: bigint; stoppedAt: bigint | null }> {
  const { db, key, reader, threshold, logger, assets, window } = ctx;
  await checkChainIdentity(db, key, reader, undefined, ctx.settings.chainId);
  await ctx.refreshWatched();
  const head = await reader.head();
  const finalized = await finalizedHeight(ctx);
  // A block this deep is final under the chain's rule (finalized tag, or `threshold` confirmations).
  const final = finalized ?? head - BigInt(Math.max(1, threshold)) + 1n;
  let to = height - 1n;
  for (let h = height; h <= head; h++) {
    const result = await detectAt(ctx, h);
    if (result !== null && h > final) {
      // Not final: no parent is checked here, so a block of another fork (a lagging or
      // balanced node) would be recorded and later confirmed by depth alone. Only the block
      // the live follower recorded at this height is, its reorgs then being the follower's.
      const [recorded] = await recordedBlocksBelow(db, key, h + 1n, h);
      if (recorded?.hash !== result.block.hash) {
        logger.warn(
          { stoppedAt: h.toString(), final: final.toString() },
          'rescan stopped at a block that is not final and not the one the live follower recorded; rescan from here once it is final',
        );
        await confirmPending(ctx, head, finalized);
        return { to, stoppedAt: h };
      }
    }
    // Transfers and events only: the live follower's cursor and block window are not touched.
    if (result !== null) await persistBlock(db, key, result, assets.byKey, window, head, false);
    to = h;
  }
  await confirmPending(ctx, head, finalized);
  return { to, stoppedAt: null };
}
