import { randomBytes } from 'node:crypto';
import type { Db } from '@walletd/core';

export type PasskeyPurpose = 'enroll' | 'sign_in' | 'step_up';

/** Long enough to touch a security key, short enough that a leaked challenge is soon worthless. */
export const CHALLENGE_TTL_MS = 120_000;

export interface ChallengeBinding {
  memberId: number;
  /** The session it was issued to (enroll, step-up); null for sign-in, before a session exists. */
  sessionId: number | null;
  purpose: PasskeyPurpose;
}

/** A fresh random challenge for one ceremony, stored with what it is bound to; old ones are swept. */
export async function issueChallenge(db: Db, b: ChallengeBinding, nowMs: number): Promise<string> {
  const challenge = randomBytes(32).toString('base64url');
  await db('webauthn_challenges').where('expires_at', '<', new Date(nowMs)).delete();
  await db('webauthn_challenges').insert({
    member_id: b.memberId,
    session_id: b.sessionId,
    purpose: b.purpose,
    challenge,
    expires_at: new Date(nowMs + CHALLENGE_TTL_MS),
  });
  return challenge;
}

/**
 * Uses a challenge once: true only for an unused, unexpired challenge issued to this member, session
 * and purpose. One conditional UPDATE, so two racing uses of the same assertion cannot both win.
 */
export async function consumeChallenge(db: Db, b: ChallengeBinding, challenge: string, nowMs: number): Promise<boolean> {
  const q = db('webauthn_challenges')
    .where({ member_id: b.memberId, purpose: b.purpose, challenge })
    .whereNull('used_at')
    .where('expires_at', '>', new Date(nowMs));
  if (b.sessionId === null) q.whereNull('session_id');
  else q.where({ session_id: b.sessionId });
  return (await q.update({ used_at: new Date(nowMs) })) === 1;
}
