import { readFailureReason, wrongHeightError } from '@walletd/core';
import type { FollowerContext } from './followerContext';

/** What a pool thread is handed: the raw block (or mempool) and the chain's watched set. */
export const detectTask = (ctx: FollowerContext, raw: Uint8Array) => ({
  detectModule: ctx.plugin.detectModule,
  raw,
  chain: ctx.chain,
  network: ctx.key.network,
  native: ctx.assets.native,
  tokens: ctx.assets.tokens,
  watched: ctx.watched.table,
});

export const formatSenders = (ctx: FollowerContext, transfers: { from?: string }[]) => {
  for (const t of transfers) if (t.from) t.from = ctx.plugin.formatAddress(ctx.chain, ctx.key.network, t.from);
};

/**
 * Fetch on this thread, parse and detect in a worker; format the senders of what matched. null:
 * the height has no block (a skipped slot).
 */
export async function detectAt(ctx: FollowerContext, height: bigint) {
  const { reader, pool, key } = ctx;
  let result: Awaited<ReturnType<typeof pool.detect>>;
  try {
    const raw = await reader.fetchBlock(height);
    if (raw === null) return null;
    result = await pool.detect(detectTask(ctx, raw));
  } catch (err) {
    // Failed on the node or found unusable in the worker: counted per block read.
    if (readFailureReason(err) === 'traces_unavailable') ctx.m?.traceFailures.inc(ctx.labels);
    throw err;
  }
  if (result.block.number !== height) throw wrongHeightError(`${key.chain}/${key.network}`, 'fetchBlock', height, result.block.number);
  formatSenders(ctx, result.transfers);
  return result;
}

export type Detected = NonNullable<Awaited<ReturnType<typeof detectAt>>>;
