import { BaseError, type Db, type MasterKey } from '@walletd/core';
import { MFA_REQUIRED_ROLES, loadCredentials } from './credentials';
import { passkeyAssertionOptions, verifyPasskeyAssertion } from '../passkeys/passkeyAssertion';
import type { RelyingParty } from '../passkeys/passkeyRelyingParty';
import { verifyPassword } from './passwords';
import { looksLikeRecoveryCode } from '../totp/recoveryCodes';
import { checkSecondFactor, hasSecondFactor, memberFactors } from './secondFactor';
import { type SessionLimits, createSession } from '../sessions/sessions';
import { isStepUpFactor, type SecondFactorUsed } from './stepUpFactors';
import { type ThrottleSettings, clearFailures, isLockedOut, recordFailure, throttleKey } from './signInThrottle';

/**
 * The member a refused sign-in identified (their password matched; the second factor did not), for
 * the audit row only: kept beside the error, never in its details, which the caller would read.
 */
const identified = new WeakMap<object, number>();
export const memberRefused = (e: unknown): number | undefined => (e && typeof e === 'object' ? identified.get(e) : undefined);

/** One message for an unknown email, a member without a password and a wrong password. */
export const BAD_CREDENTIALS = 'The email or password is incorrect';

export type { SecondFactorUsed } from './stepUpFactors';

export interface SignInInput {
  email: string;
  password: string;
  /** A TOTP code, or a recovery code; required once the member enrolled. */
  code?: string;
  /** A passkey assertion (`navigator.credentials.get`'s answer) over the challenge `mfa_required` gave. */
  passkey?: unknown;
  ip: string;
  userAgent: string | null;
}

export interface SignInDeps {
  db: Db;
  masterKey: MasterKey;
  nowMs: number;
  limits: SessionLimits & ThrottleSettings;
  rp: RelyingParty;
}

/**
 * Email and password, then the second factor when the member enrolled one. A member in several
 * companies signs in to the one whose password matches (each membership has its own password).
 * Every path that fails on the first factor runs the KDF once per candidate (at least once) and
 * answers the same 401; a locked-out pair answers 429 before any lookup, member or not.
 */
export async function signIn(
  input: SignInInput,
  d: SignInDeps,
): Promise<{ token: string; csrf: string; expiresAt: Date; memberId: number; secondFactor: SecondFactorUsed }> {
  const key = throttleKey(input.email, input.ip);
  if (await isLockedOut(d.db, key, d.nowMs)) {
    throw new BaseError('rate_limited', 'Too many failed sign-ins from this address for this email; try again later');
  }
  const candidates: { id: number; role: string }[] = await d
    .db('members')
    .whereRaw('lower(email) = lower(?)', [input.email.trim()])
    .whereNull('removed_at')
    .orderBy('id')
    .select('id', 'role');
  let member: { id: number; role: string } | undefined;
  let hashes = 0;
  for (const c of candidates) {
    const cred = await loadCredentials(d.db, c.id);
    if (!cred?.password_hash) continue;
    hashes++;
    if (await verifyPassword(cred.password_hash, input.password)) {
      member = c;
      break;
    }
  }
  if (hashes === 0) await verifyPassword(null, input.password);
  if (!member) {
    await recordFailure(d.db, key, d.nowMs, d.limits);
    throw new BaseError('unauthorized', BAD_CREDENTIALS);
  }
  const factors = await memberFactors(d.db, member.id);
  let secondFactor: SecondFactorUsed = null;
  if (hasSecondFactor(factors)) {
    const binding = { memberId: member.id, sessionId: null, purpose: 'sign_in' as const };
    if (input.passkey === undefined && !input.code) {
      // The password was right: the second step, with a challenge when the member has passkeys.
      const passkey = factors.passkeys > 0 ? await passkeyAssertionOptions(d.db, d.rp, binding, d.nowMs) : undefined;
      const ask = `Enter the code from your authenticator app (or a recovery code)${passkey ? ', or use a passkey' : ''}`;
      throw new BaseError('mfa_required', ask, {
        details: { factors: { totp: factors.totp, passkey: factors.passkeys > 0 }, ...(passkey ? { passkeyOptions: passkey } : {}) },
      });
    }
    const ok =
      input.passkey !== undefined
        ? (await verifyPasskeyAssertion(d.db, d.rp, binding, input.passkey, d.nowMs)).ok
        : await checkSecondFactor(d.db, d.masterKey, member.id, input.code as string, d.nowMs, { allowRecovery: true });
    if (!ok) {
      await recordFailure(d.db, key, d.nowMs, d.limits);
      const e = new BaseError('unauthorized', 'The authenticator code is incorrect or was already used');
      identified.set(e, member.id);
      throw e;
    }
    secondFactor = input.passkey !== undefined ? 'passkey' : looksLikeRecoveryCode(input.code as string) ? 'recovery_code' : 'totp';
  }
  await clearFailures(d.db, key);
  const s = await createSession(
    d.db,
    member.id,
    { ip: input.ip, userAgent: input.userAgent, nowMs: d.nowMs, steppedUp: isStepUpFactor(secondFactor) },
    d.limits,
  );
  return { ...s, memberId: member.id, secondFactor };
}

/** Whether a signed-in member must enroll MFA before doing anything else. */
export async function mfaEnrollmentPending(db: Db, memberId: number, role: string): Promise<boolean> {
  if (!MFA_REQUIRED_ROLES.has(role)) return false;
  return !hasSecondFactor(await memberFactors(db, memberId));
}
