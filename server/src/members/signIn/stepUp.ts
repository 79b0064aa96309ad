import { createHash } from 'node:crypto';
import { BaseError, type Db, type MasterKey } from '@walletd/core';
import { auditMember } from './auditSignIn';
import { verifyPasskeyAssertion } from '../passkeys/passkeyAssertion';
import type { RelyingParty } from '../passkeys/passkeyRelyingParty';
import { checkSecondFactor, hasSecondFactor, memberFactors } from './secondFactor';
import { type MemberSession, markSteppedUp, revokeSession } from '../sessions/sessions';
import { clearFailures, isLockedOut, recordFailure, type ThrottleSettings } from './signInThrottle';

/** Step-up failures are counted per member, in the sign-in failures table under their own key. */
const stepUpKey = (memberId: number) => createHash('sha256').update(`walletd:step-up:${memberId}`).digest('hex');

/** A step-up's proof: a TOTP code, or a passkey assertion over a challenge issued to this session. */
export type StepUpProof = { code: string } | { passkey: unknown };

/**
 * A fresh TOTP code or passkey assertion inside a session. Inside a session is where a stolen cookie
 * would guess codes, so wrong codes are audited and counted per member: `lockoutFailures` of them
 * within `lockoutMs` end this session and refuse step-ups for that member until `lockoutMs` has
 * passed, whichever session asks (the member signs in again, with password and code, once it has).
 */
export async function stepUp(
  db: Db,
  masterKey: MasterKey,
  s: MemberSession,
  proof: StepUpProof,
  ip: string | null,
  nowMs: number,
  limits: ThrottleSettings & { rp: RelyingParty },
): Promise<void> {
  if (!hasSecondFactor(await memberFactors(db, s.memberId))) {
    throw new BaseError('mfa_enrollment_required', 'Enroll an authenticator first: POST /console/api/mfa/enroll');
  }
  const key = stepUpKey(s.memberId);
  if (await isLockedOut(db, key, nowMs)) {
    throw new BaseError('rate_limited', 'Too many wrong authenticator codes: step-ups are paused for this member; try again later');
  }
  const binding = { memberId: s.memberId, sessionId: s.id, purpose: 'step_up' as const };
  const passkey = 'passkey' in proof ? await verifyPasskeyAssertion(db, limits.rp, binding, proof.passkey, nowMs) : null;
  if (passkey ? passkey.ok : await checkSecondFactor(db, masterKey, s.memberId, (proof as { code: string }).code, nowMs)) {
    await clearFailures(db, key);
    await markSteppedUp(db, s.id, nowMs);
    if (passkey?.ok) await auditMember(db, s, 'member.stepped_up', ip, { factor: 'passkey', passkeyId: passkey.passkeyId });
    return;
  }
  // A counter that did not move forward is a copied authenticator: said on its own in the audit log.
  if (passkey && !passkey.ok && passkey.reason === 'counter') await auditMember(db, s, 'member.passkey_counter_regressed', ip);
  await recordFailure(db, key, nowMs, limits);
  await auditMember(db, s, 'member.step_up_failed', ip);
  if (await isLockedOut(db, key, nowMs)) {
    await revokeSession(db, s.id, nowMs);
    await auditMember(db, s, 'member.step_up_locked', ip, { sessionRevoked: true });
    throw new BaseError('unauthorized', 'Too many wrong authenticator codes: this session has ended; sign in again later');
  }
  throw new BaseError('unauthorized', 'The authenticator code is incorrect or was already used');
}
