import { createHash } from 'node:crypto';
import type { Db } from '@walletd/core';

export interface ThrottleSettings {
  lockoutFailures: number;
  lockoutMs: number;
}

/** Keyed by email and IP together, whether or not the email belongs to a member. */
export function throttleKey(email: string, ip: string): string {
  return createHash('sha256').update(`walletd:sign-in:${email.trim().toLowerCase()}|${ip}`).digest('hex');
}

interface FailureRow {
  failures: number;
  window_started_at: Date;
  locked_until: Date | null;
}

export async function isLockedOut(db: Db, key: string, nowMs: number): Promise<boolean> {
  const row: FailureRow | undefined = await db('member_sign_in_failures').where({ key_hash: key }).first();
  return !!row?.locked_until && row.locked_until.getTime() > nowMs;
}

/** Ended rows deleted per failure: more than the one a failure can add, so the table stays bounded. */
export const PRUNE_PER_FAILURE = 100;

/**
 * Counts a failed sign-in. `lockoutFailures` failures within `lockoutMs` lock the pair out for
 * `lockoutMs`; a window that ended starts over.
 *
 * Then deletes a few rows that count for nothing any more (issue 32: one row per failing email and
 * IP pair, kept forever, so a spray of made-up emails grew the table without end): a row whose
 * window ended and whose lockout, if any, is over behaves exactly like no row (the next failure of
 * its pair starts over at 1; isLockedOut says no), so the table holds about the pairs that failed
 * within the last `lockoutMs`. By the caller's clock, as the rest of the throttle.
 */
export async function recordFailure(db: Db, key: string, nowMs: number, s: ThrottleSettings): Promise<void> {
  const now = new Date(nowMs);
  const windowStart = new Date(nowMs - s.lockoutMs);
  await db.raw(
    `INSERT INTO member_sign_in_failures AS f (key_hash, failures, window_started_at, locked_until)
     VALUES (?, 1, ?, CASE WHEN 1 >= ? THEN ?::timestamptz END)
     ON CONFLICT (key_hash) DO UPDATE SET
       failures = CASE WHEN f.window_started_at <= ? THEN 1 ELSE f.failures + 1 END,
       window_started_at = CASE WHEN f.window_started_at <= ? THEN EXCLUDED.window_started_at ELSE f.window_started_at END,
       locked_until = CASE
         WHEN (CASE WHEN f.window_started_at <= ? THEN 1 ELSE f.failures + 1 END) >= ? THEN ?::timestamptz
         ELSE f.locked_until END`,
    [
      key,
      now,
      s.lockoutFailures,
      new Date(nowMs + s.lockoutMs),
      windowStart,
      windowStart,
      windowStart,
      s.lockoutFailures,
      new Date(nowMs + s.lockoutMs),
    ],
  );
  // The condition is repeated on the deleted row itself: a pair's failure recorded meanwhile by
  // another request (its window started over) is re-checked on its new version and kept.
  const ended = 'window_started_at <= ? AND (locked_until IS NULL OR locked_until <= ?)';
  await db.raw(
    `DELETE FROM member_sign_in_failures
     WHERE key_hash IN (SELECT key_hash FROM member_sign_in_failures WHERE ${ended} LIMIT ?) AND ${ended}`,
    [windowStart, now, PRUNE_PER_FAILURE, windowStart, now],
  );
}

export async function clearFailures(db: Db, key: string): Promise<void> {
  await db('member_sign_in_failures').where({ key_hash: key }).delete();
}
