import { createHmac } from 'node:crypto';
import { BaseError, type Db } from '@walletd/core';
import { newToken, tokenHash } from './secretToken';

export interface SessionLimits {
  idleTimeoutMs: number;
  absoluteTimeoutMs: number;
}

export interface MemberSession {
  id: number;
  memberId: number;
  companyId: number;
  email: string;
  role: string;
  createdAt: Date;
  expiresAt: Date;
  steppedUpAt: Date | null;
  /** The CSRF token that goes with this session (derived from its token, never stored). */
  csrf: string;
}

/** Double-submit token bound to the session: only the holder of the session's token can compute it. */
export function csrfFor(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('walletd:console:csrf:v1').digest('base64url');
}

export async function createSession(
  db: Db,
  memberId: number,
  meta: { ip: string | null; userAgent: string | null; nowMs: number; steppedUp: boolean },
  limits: SessionLimits,
): Promise<{ token: string; csrf: string; expiresAt: Date }> {
  const token = newToken();
  const now = new Date(meta.nowMs);
  const expiresAt = new Date(meta.nowMs + limits.absoluteTimeoutMs);
  await db('member_sessions').insert({
    token_hash: tokenHash(token),
    member_id: memberId,
    created_at: now,
    last_seen_at: now,
    expires_at: expiresAt,
    ip: meta.ip,
    user_agent: meta.userAgent?.slice(0, 512) ?? null,
    // A sign-in with a TOTP code is itself a fresh second factor.
    stepped_up_at: meta.steppedUp ? now : null,
  });
  return { token, csrf: csrfFor(token), expiresAt };
}

interface SessionRow {
  id: number;
  member_id: number;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
  stepped_up_at: Date | null;
  company_id: number;
  email: string;
  role: string;
  removed_at: Date | null;
}

/**
 * The live session a token names, or null: revoked, past its absolute expiry, idle longer than the
 * idle timeout, or its member removed. A live session's `last_seen_at` moves to now.
 */
export async function findSession(db: Db, token: string, nowMs: number, limits: SessionLimits): Promise<MemberSession | null> {
  const row = await db<SessionRow>('member_sessions as s')
    .join('members as m', 'm.id', 's.member_id')
    .where('s.token_hash', tokenHash(token))
    .first(
      's.id',
      's.member_id',
      's.created_at',
      's.last_seen_at',
      's.expires_at',
      's.revoked_at',
      's.stepped_up_at',
      'm.company_id',
      'm.email',
      'm.role',
      'm.removed_at',
    );
  if (!row || row.revoked_at || row.removed_at) return null;
  if (row.expires_at.getTime() <= nowMs || row.last_seen_at.getTime() + limits.idleTimeoutMs <= nowMs) {
    // Ended for good: a later request with a clock that went back does not revive it.
    await db('member_sessions')
      .where({ id: row.id })
      .whereNull('revoked_at')
      .update({ revoked_at: new Date(nowMs) });
    return null;
  }
  await db('member_sessions')
    .where({ id: row.id })
    .update({ last_seen_at: new Date(nowMs) });
  return {
    id: row.id,
    memberId: row.member_id,
    companyId: row.company_id,
    email: row.email,
    role: row.role,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    steppedUpAt: row.stepped_up_at,
    csrf: csrfFor(token),
  };
}

export async function revokeSession(db: Db, sessionId: number, nowMs: number): Promise<void> {
  await db('member_sessions')
    .where({ id: sessionId })
    .whereNull('revoked_at')
    .update({ revoked_at: new Date(nowMs) });
}

/** Every session of a member ends (a password was reset). */
export async function revokeMemberSessions(db: Db, memberId: number, nowMs: number): Promise<void> {
  await db('member_sessions')
    .where({ member_id: memberId })
    .whereNull('revoked_at')
    .update({ revoked_at: new Date(nowMs) });
}

export async function markSteppedUp(db: Db, sessionId: number, nowMs: number): Promise<void> {
  await db('member_sessions')
    .where({ id: sessionId })
    .update({ stepped_up_at: new Date(nowMs) });
}

/**
 * For sensitive actions (approving a withdrawal, creating an API key, changing a policy, inviting a
 * member): the session must have given a TOTP code within `stepUpMs`, else 403 step_up_required.
 */
export function requireStepUp(session: MemberSession, nowMs: number, stepUpMs: number): void {
  const at = session.steppedUpAt?.getTime();
  if (at === undefined || at + stepUpMs < nowMs) {
    throw new BaseError('step_up_required', 'This action needs a fresh authenticator code: POST /console/api/step-up first');
  }
}
