/**
 * The one retry loop of every node client (JSON-RPC, REST, WebSocket): a call that failed
 * transiently (no answer, a reset, a timeout, an overloaded proxy) is tried again a bounded number
 * of times, after a pause that doubles each time, jittered so that many readers that lost the same
 * node do not come back in step, and capped. What is transient is the caller's to say (each
 * transport knows its node's failures): by default a `TransientError`. An answer of the node (an
 * RPC error, a refusal) is never transient: it would answer the same again. A publishing call is
 * made with `attempts: 1`: a send whose answer was lost may have reached the node.
 */
import { BaseError } from '../errors';

export interface RetryOptions {
  /** Attempts in all, the first included: 1 never retries. */
  attempts: number;
  /** The pause after the first failure (before jitter); doubled after each further one. Default 250. */
  backoffMs?: number;
  /** The longest pause. Default 10000. */
  maxBackoffMs?: number;
  /** Whether a failure deserves another attempt; default: it is a `TransientError`. */
  isTransient?: (e: unknown) => boolean;
  /** Stops the loop: no further attempt, a pause under way ends at once, the call rejects with its reason. */
  signal?: AbortSignal;
  /** A number in [0, 1); default `Math.random`. Injected by tests. */
  random?: () => number;
  /** How a pause is taken; default a timer that the signal cuts short. Injected by tests. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** A failure worth another attempt; `kind` says which for the error the caller finally reports. */
export class TransientError extends BaseError {
  /** Attempts made when the loop gave up on it (set by `retry`). */
  attempts = 1;
  constructor(
    message: string,
    readonly kind: 'timeout' | 'unreachable' | 'http' = 'unreachable',
  ) {
    super('node_transient', message);
    this.name = 'TransientError';
  }
}

/**
 * The pause after failed attempt `n` (1-based): the doubled back-off capped at `maxBackoffMs`,
 * then "equal jitter": somewhere in its upper half, so a retry never comes back at once.
 */
export function backoffDelay(n: number, options: Pick<RetryOptions, 'backoffMs' | 'maxBackoffMs' | 'random'> = {}): number {
  const cap = Math.min(options.maxBackoffMs ?? 10_000, (options.backoffMs ?? 250) * 2 ** (n - 1));
  return Math.round(cap / 2 + (options.random ?? Math.random)() * (cap / 2));
}

/** `fn` until it succeeds, fails for good or the attempts are spent; the last failure is thrown as it was. */
export async function retry<T>(fn: (attempt: number) => Promise<T>, options: RetryOptions): Promise<T> {
  const transient = options.isTransient ?? ((e: unknown) => e instanceof TransientError);
  const sleep = options.sleep ?? pause;
  const attempts = Math.max(1, options.attempts);
  for (let n = 1; ; n++) {
    options.signal?.throwIfAborted();
    try {
      return await fn(n);
    } catch (e) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (n >= attempts || !transient(e)) {
        if (e instanceof TransientError) e.attempts = n;
        throw e;
      }
    }
    await sleep(backoffDelay(n, options), options.signal);
  }
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
