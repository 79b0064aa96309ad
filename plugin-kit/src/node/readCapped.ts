import { BaseError } from '../errors';

/**
 * The most bytes one node answer may have unless `chains[].maxResponseBytes` says otherwise: 64 MiB.
 * Above the largest answer a supported chain produces, with room: an EVM block with its receipts on
 * BNB Chain's gas limit (logs cost 8 gas a byte, printed as hex: some 35 MB at most), a full Solana
 * block (~7 MB), a Bitcoin block as hex (≤ 8 MB) or a busy mempool's txid list (~20 MB). What is
 * larger is a broken or hostile node (issue 29: 200 MB answers took the process to 2.86 GB).
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** An answer over the cap; the caller turns it into its `node_error`. */
export class ResponseTooLarge extends BaseError {
  constructor(readonly limit: number) {
    super('node_answer_too_large', `answered more than ${limit} bytes`);
    this.name = 'ResponseTooLarge';
  }
}

/**
 * A response body read into one buffer, at most `limit` bytes: a declared length over it is refused
 * before a byte is read, and a body that grows past it is abandoned at the chunk that crosses it
 * (leaving the loop cancels the stream, which closes the connection), so the rest is never
 * received, let alone kept. `body`: undici's Readable or fetch's web stream, both async iterable.
 */
export async function readCapped(body: AsyncIterable<Uint8Array> | null, limit: number, declaredLength?: string | null): Promise<Buffer> {
  return joinChunks(await readCappedParts(body, limit, declaredLength));
}

/**
 * `readCapped`'s body as the chunks it arrived in, under the same cap, not joined: for a caller
 * that copies them into a buffer of its own anyway (the EVM reader's raw block, `concatBytes`), a
 * join here was a second copy of every byte on the main thread (a fresh 300 KB a block, issue 41).
 */
export async function readCappedParts(
  body: AsyncIterable<Uint8Array> | null,
  limit: number,
  declaredLength?: string | null,
): Promise<Uint8Array[]> {
  if (body === null) return [];
  if (declaredLength && Number(declaredLength) > limit) {
    await abandon(body);
    throw new ResponseTooLarge(limit);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.byteLength;
    // Leaving the loop by throwing runs the iterator's return(): the stream is destroyed or cancelled.
    if (total > limit) throw new ResponseTooLarge(limit);
    chunks.push(chunk);
  }
  return chunks;
}

/**
 * The chunks in one buffer: the only chunk as it is, or one uninitialised allocation every byte of
 * which is then written (`Buffer.concat` measured several times slower on the follower's
 * 360 KB answers, where this runs once per node call on the main thread).
 */
export function joinChunks(chunks: readonly Uint8Array[]): Buffer {
  if (chunks.length === 0) return Buffer.alloc(0);
  const only = chunks.length === 1 ? chunks[0] : undefined;
  if (only !== undefined) return Buffer.from(only.buffer, only.byteOffset, only.byteLength);
  const out = Buffer.allocUnsafeSlow(chunks.reduce((n, c) => n + c.byteLength, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

/**
 * Ends the body without reading it: undici's Readable is destroyed, a web stream cancelled (an
 * async iterator never started would end without touching the stream).
 */
async function abandon(body: AsyncIterable<Uint8Array>): Promise<void> {
  const stream = body as { destroy?: () => void; cancel?: () => Promise<void>; once?: (event: 'error', fn: () => void) => void };
  if (typeof stream.destroy === 'function') {
    // undici's Readable emits its RequestAbortedError on destroy; unheard, it is an uncaught error.
    stream.once?.('error', () => undefined);
    stream.destroy();
  } else await stream.cancel?.().catch(() => undefined);
}
