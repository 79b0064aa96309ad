import { createHash } from 'node:crypto';
import { BaseError, type Db, type MasterKey } from '@walletd/core';
import { auditMember } from './auditSignIn';
import { loadCredentials } from './credentials';
import { checkSecondFactor } from './secondFactor';
import { type MemberSession, markSteppedUp, revokeSession } from './sessions';
import { clearFailures, isLockedOut, recordFailure, type ThrottleSettings } from './signInThrottle';

/** Step-up failures are counted per member, in the sign-in failures table under their own key. */
const stepUpKey = (memberId: number) => createHash('sha256').update(`walletd:step-up:${memberId}`).digest('hex');

/**
 * A fresh TOTP (or recovery) code inside a session. Inside a session is where a stolen cookie
 * would guess codes, so wrong codes are audited and counted per member: `lockoutFailures` of them
 * within `lockoutMs` end this session and refuse step-ups for that member until `lockoutMs` has
 * passed, whichever session asks (the member signs in again, with password and code, once it has).
 */
export async function stepUp(
  db: Db,
  masterKey: MasterKey,
  s: MemberSession,
  code: string,
  ip: string | null,
  nowMs: number,
  limits: ThrottleSettings,
): Promise<void> {
  if (!(await loadCredentials(db, s.memberId))?.totp_enrolled) {
    throw new BaseError('mfa_enrollment_required', 'Enroll an authenticator first: POST /console/api/mfa/enroll');
  }
  const key = stepUpKey(s.memberId);
  if (await isLockedOut(db, key, nowMs)) {
    throw new BaseError('rate_limited', 'Too many wrong authenticator codes: step-ups are paused for this member; try again later');
  }
  if (await checkSecondFactor(db, masterKey, s.memberId, code, nowMs)) {
    await clearFailures(db, key);
    await markSteppedUp(db, s.id, nowMs);
    return;
  }
  await recordFailure(db, key, nowMs, limits);
  await auditMember(db, s, 'member.step_up_failed', ip);
  if (await isLockedOut(db, key, nowMs)) {
    await revokeSession(db, s.id, nowMs);
    await auditMember(db, s, 'member.step_up_locked', ip, { sessionRevoked: true });
    throw new BaseError('unauthorized', 'Too many wrong authenticator codes: this session has ended; sign in again later');
  }
  throw new BaseError('unauthorized', 'The authenticator code is incorrect or was already used');
}
