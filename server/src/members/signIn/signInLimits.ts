import { BaseError, type Db } from '@walletd/core';

export interface SignInLimitSettings {
  /** Sign-in attempts per client IP per minute, whatever the email (a spray of emails is one IP's budget). */
  signInPerIpPerMinute: number;
  /** Sign-in attempts per minute across every IP: the ceiling on password hashes sign-in may cost. */
  signInPerMinute: number;
}

const WINDOW_MS = 60_000;

/** One upsert per counter: the hits of this window, by the console's clock (windows of one minute). */
async function hit(db: Db, key: string, windowStart: Date): Promise<number> {
  const { rows } = await db.raw(
    `insert into rate_limit_hits (key, window_start, hits) values (?, ?, 1)
     on conflict (key, window_start) do update set hits = rate_limit_hits.hits + 1 returning hits`,
    [key, windowStart],
  );
  return Number((rows[0] as { hits: number }).hits);
}

/**
 * Counts a sign-in attempt against its IP's and everyone's budget before any password is hashed,
 * in the API's rate-limit table (shared by every console process). Over either: 429 `rate_limited`
 * with Retry-After until the minute ends. The per email and IP lockout (signInThrottle.ts) still
 * applies beneath: these bound what one address, or all of them, can make the server hash.
 */
export async function countSignInAttempt(db: Db, ip: string, nowMs: number, s: SignInLimitSettings): Promise<void> {
  const start = Math.floor(nowMs / WINDOW_MS) * WINDOW_MS;
  const windowStart = new Date(start);
  const retryAfterSeconds = Math.max(1, Math.ceil((start + WINDOW_MS - nowMs) / 1000));
  if ((await hit(db, `console-sign-in:ip:${ip}`, windowStart)) > s.signInPerIpPerMinute) {
    throw new BaseError('rate_limited', `Too many sign-ins from this address; retry in ${retryAfterSeconds} seconds`, {
      details: { retryAfterSeconds },
    });
  }
  if ((await hit(db, 'console-sign-in:all', windowStart)) > s.signInPerMinute) {
    throw new BaseError('rate_limited', `Too many sign-ins right now; retry in ${retryAfterSeconds} seconds`, {
      details: { retryAfterSeconds },
    });
  }
}
