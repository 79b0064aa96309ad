import { BaseError, type Db, type MasterKey, databaseClockTooFar } from '@walletd/core';
import { loadCredentials, openTotpSecret } from './credentials';
import { looksLikeRecoveryCode, useRecoveryCode } from '../totp/recoveryCodes';
import { totpStep } from '../totp/totp';

// Which factor a sign-in passed, and which of them is a step-up: one decision, in stepUpFactors.ts.
export { type SecondFactorUsed, isStepUpFactor } from './stepUpFactors';

/** The second factors a member has: a confirmed TOTP authenticator and how many passkeys. */
export async function memberFactors(db: Db, memberId: number): Promise<{ totp: boolean; passkeys: number }> {
  const cred = await loadCredentials(db, memberId);
  const [row] = await db('member_passkeys').where({ member_id: memberId }).count({ n: '*' });
  return { totp: !!cred?.totp_enrolled, passkeys: Number(row?.n ?? 0) };
}

export const hasSecondFactor = (f: { totp: boolean; passkeys: number }): boolean => f.totp || f.passkeys > 0;

/**
 * Checks a second factor: a 6-digit TOTP code (a step not used before) or, at sign-in, an unused
 * recovery code. Accepting a step records it in the same statement that checks it is newer than
 * the last one, so a code (or an older one) is never accepted twice, even by two racing requests.
 */
export async function checkSecondFactor(
  db: Db,
  masterKey: MasterKey,
  memberId: number,
  code: string,
  nowMs: number,
  opts: { allowRecovery: boolean; enrolledOnly?: boolean } = { allowRecovery: false },
): Promise<boolean> {
  const cred = await loadCredentials(db, memberId);
  if (!cred?.totp_envelope) return false;
  if ((opts.enrolledOnly ?? true) && !cred.totp_enrolled) return false;
  if (opts.allowRecovery && looksLikeRecoveryCode(code)) return useRecoveryCode(db, memberId, code, new Date(nowMs));
  // A host clock beyond clock.maxSkewMs would refuse good codes (or take old ones): say why instead (docs/operate/faults.md, "Clock skew").
  if (databaseClockTooFar()) {
    throw new BaseError('unavailable', "The server's clock is too far from the database's to check codes; retry later", {
      details: { reason: 'clock_skew' },
    });
  }
  const step = totpStep(openTotpSecret(masterKey, memberId, cred.totp_envelope), code, nowMs);
  if (step === null) return false;
  const n = await db('member_credentials')
    .where({ member_id: memberId })
    .andWhere((q) => q.whereNull('totp_last_step').orWhere('totp_last_step', '<', step))
    .update({ totp_last_step: step, updated_at: new Date(nowMs) });
  return n === 1;
}
