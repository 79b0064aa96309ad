/** Spec 6.2: 5 attempts; backoff about 5 s, doubling, capped at 60 s; 429 honours Retry-After. */
export const MAX_ATTEMPTS = 5;
export const FIRST_BACKOFF_SECONDS = 5;
export const MAX_BACKOFF_SECONDS = 60;
/** A Retry-After beyond a day is taken as a day: a receiver cannot park an event forever. */
export const MAX_RETRY_AFTER_SECONDS = 86_400;

/**
 * Delay before the next attempt, given how many attempts have been made (1 after the first).
 * `baseMs` (`webhooks.retryBaseMs`) scales the whole schedule, cap included: a test knob.
 */
export function backoffSeconds(attemptsMade: number, baseMs = FIRST_BACKOFF_SECONDS * 1000): number {
  const ms = Math.min(baseMs * 2 ** Math.max(0, attemptsMade - 1), baseMs * (MAX_BACKOFF_SECONDS / FIRST_BACKOFF_SECONDS));
  return ms / 1000;
}

/** Retry-After as delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | null {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return null;
  const t = v.trim();
  if (/^[0-9]+$/.test(t)) return Math.min(Number(t), MAX_RETRY_AFTER_SECONDS);
  const at = Date.parse(t);
  if (Number.isNaN(at)) return null;
  return Math.min(Math.max(0, Math.ceil((at - now) / 1000)), MAX_RETRY_AFTER_SECONDS);
}

export const isSuccess = (status: number): boolean => status >= 200 && status < 300;
