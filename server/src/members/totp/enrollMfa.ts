import type { ConsoleMfaEnrollment } from '@walletd/schemas';
import { BaseError, type Db, type MasterKey } from '@walletd/core';
import { loadCredentials, sealTotpSecret } from '../signIn/credentials';
import { issueRecoveryCodes } from './recoveryCodes';
import { checkSecondFactor } from '../signIn/secondFactor';
import { newTotpSecret, otpauthQrSvg, otpauthUri } from './totp';

/**
 * Starts TOTP enrollment: a new secret, sealed at rest, not yet required at sign-in. Shown once (the
 * secret, its otpauth:// URI and that URI as a QR code); starting again replaces an unconfirmed secret.
 * Replacing a confirmed one is refused here (it will be a step-up action of the console).
 */
export async function startMfaEnrollment(
  db: Db,
  masterKey: MasterKey,
  member: { memberId: number; email: string },
  nowMs: number,
): Promise<ConsoleMfaEnrollment> {
  const cred = await loadCredentials(db, member.memberId);
  if (cred?.totp_enrolled) throw new BaseError('conflict', 'An authenticator is already enrolled for this member');
  const secret = newTotpSecret();
  await db('member_credentials')
    .where({ member_id: member.memberId })
    .update({ totp_envelope: sealTotpSecret(masterKey, member.memberId, secret), totp_last_step: null, updated_at: new Date(nowMs) });
  const uri = otpauthUri(secret, member.email);
  return { secret, otpauthUri: uri, qrSvg: await otpauthQrSvg(uri) };
}

/** Confirms enrollment with a first code; from then on sign-in asks for one. Recovery codes are returned once. */
export async function confirmMfaEnrollment(
  db: Db,
  masterKey: MasterKey,
  memberId: number,
  code: unknown,
  nowMs: number,
): Promise<{ recoveryCodes: string[] }> {
  const cred = await loadCredentials(db, memberId);
  if (!cred?.totp_envelope) throw new BaseError('conflict', 'Start enrollment first: POST /console/api/mfa/enroll');
  if (cred.totp_enrolled) throw new BaseError('conflict', 'An authenticator is already enrolled for this member');
  if (
    typeof code !== 'string' ||
    !(await checkSecondFactor(db, masterKey, memberId, code, nowMs, { allowRecovery: false, enrolledOnly: false }))
  ) {
    throw new BaseError('validation_failed', 'The authenticator code is incorrect or was already used');
  }
  await db('member_credentials')
    .where({ member_id: memberId })
    .update({ totp_enrolled: true, updated_at: new Date(nowMs) });
  return { recoveryCodes: await issueRecoveryCodes(db, memberId) };
}
