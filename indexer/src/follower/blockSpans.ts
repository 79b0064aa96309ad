import { type Link, type SpanContext, withSpan } from '@walletd/core';
import type { FollowerContext } from './followerContext';

// Each detected block's span, for the write that records it to link to (traces on only).
const spans = new WeakMap<object, SpanContext>();

/**
 * A height's fetch and detect under one `indexer.block` span (docs/operate/monitoring.md,
 * "Traces"); the write of the group it joins (`indexer.persist`) links to it: a deposit's trace
 * goes from its block to the event recorded and on to each delivery attempt.
 */
export function blockSpan<T extends object | null>(ctx: FollowerContext, height: bigint, fn: () => Promise<T>): Promise<T> {
  const attributes = { 'walletd.chain': ctx.key.chain, 'walletd.network': ctx.key.network, 'walletd.block.height': height.toString() };
  return withSpan('indexer.block', { attributes }, async (span) => {
    const result = await fn();
    if (result !== null && span.isRecording()) spans.set(result, span.spanContext());
    return result;
  });
}

/** Links to the spans of the blocks a write records. */
export function blockLinks(results: object[]): Link[] {
  const links: Link[] = [];
  for (const r of results) {
    const context = spans.get(r);
    if (context) links.push({ context });
  }
  return links;
}
