import { readFailureReason, withSpan, wrongHeightError } from '@walletd/core';
import { blockSpan } from './blockSpans';
import { holdUnbacked } from './holdUnbacked';
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
 * What a plugin reports with no positive amount moved nothing (a zero token transfer plants a
 * look-alike sender: address poisoning); the store drops it too, this counts and logs it.
 */
export function dropNonPositive<T extends { amount: bigint; txHash: string; eventIndex: number }>(
  ctx: FollowerContext,
  transfers: T[],
): T[] {
  const kept = transfers.filter((t) => t.amount > 0n);
  if (kept.length === transfers.length) return transfers;
  const dropped = transfers.filter((t) => t.amount <= 0n);
  ctx.m?.depositsWithheld.inc({ ...ctx.labels, reason: 'zero_amount' }, dropped.length);
  ctx.logger.debug({ dropped: dropped.map((t) => `${t.txHash}:${t.eventIndex}`) }, 'transfers without a positive amount not recorded');
  return kept;
}

/**
 * Fetch on this thread, parse and detect in a worker; format the senders of what matched. null:
 * the height has no block (a skipped slot).
 */
export function detectAt(ctx: FollowerContext, height: bigint) {
  return blockSpan(ctx, height, () => fetchAndDetect(ctx, height));
}

async function fetchAndDetect(ctx: FollowerContext, height: bigint) {
  const { reader, pool, key } = ctx;
  let result: Awaited<ReturnType<typeof pool.detect>>;
  try {
    const raw = await withSpan('indexer.fetch_block', {}, () => reader.fetchBlock(height));
    if (raw === null) return null;
    // The catch-up window's estimate of a block's size (windowSize.ts): a moving average.
    ctx.blockBytes = ctx.blockBytes === 0 ? raw.byteLength : Math.round(ctx.blockBytes * 0.8 + raw.byteLength * 0.2);
    result = await withSpan('indexer.detect', { attributes: { 'walletd.block.bytes': raw.byteLength } }, () =>
      pool.detect(detectTask(ctx, raw)),
    );
  } catch (err) {
    // Failed on the node or found unusable in the worker: counted per block read.
    if (readFailureReason(err) === 'traces_unavailable') ctx.m?.traceFailures.inc(ctx.labels);
    throw err;
  }
  if (result.block.number !== height) throw wrongHeightError(`${key.chain}/${key.network}`, 'fetchBlock', height, result.block.number);
  result.transfers = dropNonPositive(ctx, result.transfers);
  await holdUnbacked(ctx, result);
  formatSenders(ctx, result.transfers);
  return result;
}

export type Detected = NonNullable<Awaited<ReturnType<typeof detectAt>>>;
