/**
 * Heights fetched and detected ahead of the one being written, unless `indexer.pipelineDepth` says
 * otherwise. 32, not 8: each group of blocks written costs a transaction of about seven round
 * trips, and a window of 8 left the follower at 0.36x of the node's rate on empty blocks against
 * 0.87x with 32 (`npm run bench -- follower`, 2026-11-28, bench/README.md).
 */
export const DEFAULT_PIPELINE_DEPTH = 32;

/**
 * What the window may hold in raw node answers (`indexer.pipelineBytes`), estimated from the mean
 * size of the recent blocks: 32 empty blocks, about 15 of mainnet's biggest (block, receipts and
 * traces near 17 MB). Each answer is also capped by the chain's `maxResponseBytes` (readCapped).
 */
export const DEFAULT_PIPELINE_BYTES = 256 * 1024 * 1024;

/** Before any block's size is known the window opens this far. */
const FIRST_WINDOW = 8;

/** Heights the window may hold now: `depth`, fewer when the recent blocks are big. */
export function windowSize(ctx: { depth: number; pipelineBytes: number; blockBytes: number }): number {
  if (ctx.blockBytes <= 0) return Math.min(ctx.depth, FIRST_WINDOW);
  return Math.max(1, Math.min(ctx.depth, Math.floor(ctx.pipelineBytes / ctx.blockBytes)));
}
