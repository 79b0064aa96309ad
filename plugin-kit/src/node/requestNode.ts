import type * as Undici from 'undici';
import { NodeCallError, tooLargeError } from './nodeCallError';
import { observedNodeCall } from './nodeCallObserver';
import { ResponseTooLarge, joinChunks, readCappedParts } from './readCapped';
import { TransientError, retry } from './retry';

/**
 * One HTTP call to a node for every HTTP transport of the kit and the plugins (JSON-RPC, java-tron's
 * REST, toncenter): undici's `request`, the body kept as bytes and read up to a cap. Global `fetch`
 * (web streams, then a decode to text) cost about twice the CPU per 150 KB answer (issue 17).
 * Redirects are not followed: a node answering 3xx is misconfigured, and credentials are never
 * sent on to another address.
 */
export interface NodeRequest {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** Deadline of one attempt: headers and body. */
  timeoutMs: number;
  /** The most bytes the answer may have (`readCapped`). */
  maxBytes: number;
  signal?: AbortSignal;
}

export interface NodeAnswer {
  status: number;
  /** The body in one buffer, joined from `parts` when first read. */
  readonly body: Buffer;
  /** The body as it arrived, for a caller that copies it on into a buffer of its own (`callRawParts`). */
  readonly parts: readonly Uint8Array[];
}

/** An answer whose `body` is joined only if asked for. */
function answerOf(status: number, parts: readonly Uint8Array[]): NodeAnswer {
  let joined: Buffer | undefined;
  return {
    status,
    parts,
    get body() {
      joined ??= joinChunks(parts);
      return joined;
    },
  };
}

/** Proxies and rate limits in front of a node: another attempt may well be answered. */
const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);

// Loaded on the first call, not with the kit: a detect worker imports the kit for its errors and
// types, never calls a node, and would otherwise load undici's ~130 modules per thread.
let undici: typeof Undici | undefined;

/** One attempt: the answer (any status but the retryable ones), a `TransientError`, or `ResponseTooLarge`. */
export async function requestOnce(url: string, request: NodeRequest): Promise<NodeAnswer> {
  const controller = new AbortController();
  const deadline = setTimeout(() => controller.abort(), request.timeoutMs);
  const onAbort = () => controller.abort();
  request.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    undici ??= require('undici') as typeof Undici;
    const res = await undici.request(url, {
      method: request.method,
      headers: request.headers,
      ...(request.body !== undefined ? { body: request.body } : {}),
      signal: controller.signal,
    });
    const parts = await readCappedParts(res.body, request.maxBytes, res.headers['content-length'] as string | undefined);
    if (RETRYABLE_STATUS.has(res.statusCode)) throw new TransientError(`HTTP ${res.statusCode}`, 'http');
    return answerOf(res.statusCode, parts);
  } catch (e) {
    if (e instanceof TransientError || e instanceof ResponseTooLarge) throw e;
    if (request.signal?.aborted) throw request.signal.reason;
    if (controller.signal.aborted) throw new TransientError(`timed out after ${request.timeoutMs} ms`, 'timeout');
    throw new TransientError(((e as Error).cause as Error | undefined)?.message ?? (e as Error).message, 'unreachable');
  } finally {
    clearTimeout(deadline);
    request.signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * `requestOnce` under the kit's `retry` (`attempts` in all: 1 for a publishing call), its
 * failures as the `NodeCallError` that names `what` (the method or path) and never the URL.
 */
export async function requestNode(
  what: string,
  url: string,
  request: NodeRequest & { attempts: number; backoffMs?: number; name?: string },
): Promise<NodeAnswer> {
  try {
    return await observedNodeCall(request.name, what, () =>
      retry(() => requestOnce(url, request), {
        attempts: request.attempts,
        ...(request.backoffMs !== undefined ? { backoffMs: request.backoffMs } : {}),
        ...(request.signal ? { signal: request.signal } : {}),
      }),
    );
  } catch (e) {
    throw nodeCallFailure(request.name, what, e);
  }
}

/** A transport failure as the `node_error` a caller reports; anything else unchanged. */
export function nodeCallFailure(name: string | undefined, what: string, e: unknown): unknown {
  if (e instanceof ResponseTooLarge) return tooLargeError(name, what, e.limit);
  if (e instanceof TransientError)
    return new NodeCallError(`${what} failed: ${e.message}`, { method: what, kind: e.kind, attempts: e.attempts });
  return e;
}
