import { BaseError, type Db, type MasterKey, databaseClockTooFar } from '@walletd/core';
import { loadCredentials, openTotpSecret } from './credentials';
import { looksLikeRecoveryCode, useRecoveryCode } from './recoveryCodes';
import { totpStep } from './totp';

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
  // A host clock beyond clock.maxSkewMs would refuse good codes (or take old ones): say why instead (README "Clock skew").
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
