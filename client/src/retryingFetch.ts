/** How the client retries (README "Retries"). */
export interface RetryOptions {
  /** Retries after the first attempt (default 2: three attempts at most); 0 turns retrying off. */
  maxRetries?: number;
  /** The longest `Retry-After` the client waits out (default 60 000 ms); a longer one is returned to the caller. */
  maxRetryAfterMs?: number;
  /** The first back-off when walletd names no `Retry-After` (default 500 ms), doubled on each retry, with jitter. */
  baseDelayMs?: number;
  /** Called before each retry (for logs and tests). */
  onRetry?: (retry: RetryInfo) => void;
}

export interface RetryInfo {
  method: string;
  url: string;
  /** 1 for the first retry. */
  attempt: number;
  /** The status that caused it, or undefined when the connection failed. */
  status: number | undefined;
  delayMs: number;
}

/** Statuses that say "the same request may succeed later": rate limited, a proxy or walletd briefly away. */
export const RETRY_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Milliseconds from a Retry-After header (seconds or an HTTP date), or undefined. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * A write may run twice only if walletd can tell the second from the first: its JSON body carries
 * an `idempotencyKey` (walletd answers a repeat with the first result). Reads are always safe.
 */
async function mayRepeat(request: Request): Promise<boolean> {
  if (SAFE_METHODS.has(request.method)) return true;
  const text = await request.clone().text();
  if (text === '') return false;
  try {
    const body = JSON.parse(text) as { idempotencyKey?: unknown };
    return typeof body.idempotencyKey === 'string' && body.idempotencyKey !== '';
  } catch {
    return false;
  }
}

const sleep = (ms: number, signal: AbortSignal | null) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });

/**
 * A fetch that retries on 429/502/503/504 and on a failed connection, waiting what `Retry-After`
 * says (else an exponential back-off), a bounded number of times; writes only when repeatable.
 */
export function retryingFetch(base: typeof fetch, options: RetryOptions = {}): (request: Request) => Promise<Response> {
  const maxRetries = options.maxRetries ?? 2;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 60_000;
  const baseDelayMs = options.baseDelayMs ?? 500;
  return async (request: Request) => {
    const repeatable = maxRetries > 0 && (await mayRepeat(request));
    for (let attempt = 1; ; attempt++) {
      const last = !repeatable || attempt > maxRetries;
      let response: Response | undefined;
      try {
        response = await base(last ? request : request.clone());
      } catch (e) {
        if (last || request.signal?.aborted) throw e;
      }
      if (response && (last || !RETRY_STATUSES.has(response.status))) return response;
      const backoff = baseDelayMs * 2 ** (attempt - 1) * (0.75 + Math.random() / 2);
      const asked = response ? retryAfterMs(response.headers.get('retry-after')) : undefined;
      if (asked !== undefined && asked > maxRetryAfterMs && response) return response;
      const delayMs = Math.round(asked ?? backoff);
      options.onRetry?.({ method: request.method, url: request.url, attempt, status: response?.status, delayMs });
      await response?.body?.cancel();
      await sleep(delayMs, request.signal);
    }
  };
}
