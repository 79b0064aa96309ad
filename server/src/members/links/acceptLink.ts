import { BaseError, type Db } from '@walletd/core';
import { checkPasswordStrength } from '../signIn/passwordStrength';
import { checkPasswordShape, hashPassword } from '../signIn/passwords';
import { tokenHash } from '../sessions/secretToken';
import { revokeMemberSessions } from '../sessions/sessions';

/**
 * Sets a password through an invitation or reset link. The link is spent in the same statement that
 * checks it is unused and unexpired, so two uses of one link cannot both succeed. A reset ends every
 * session of the member. The second factor is not touched: a reset link alone does not get past MFA.
 */
export async function acceptLink(db: Db, token: string, password: unknown, nowMs: number): Promise<{ memberId: number; purpose: string }> {
  const pw = checkPasswordShape(password);
  checkPasswordStrength(pw);
  const hash = await hashPassword(pw);
  const now = new Date(nowMs);
  return db.transaction(async (trx) => {
    const [link] = await trx('member_links')
      .where({ token_hash: tokenHash(token) })
      .whereNull('used_at')
      .where('expires_at', '>', now)
      .update({ used_at: now })
      .returning(['member_id', 'purpose']);
    const member = link && (await trx('members').where({ id: link.member_id }).whereNull('removed_at').first('id'));
    if (!link || !member)
      throw new BaseError('not_found', 'This link is not valid: it was used, it expired, or it was replaced by a newer one');
    await trx.raw(
      `INSERT INTO member_credentials (member_id, password_hash, password_set_at, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (member_id) DO UPDATE SET password_hash = EXCLUDED.password_hash, password_set_at = EXCLUDED.password_set_at, updated_at = EXCLUDED.updated_at`,
      [link.member_id, hash, now, now],
    );
    await revokeMemberSessions(trx as unknown as Db, link.member_id, nowMs);
    return { memberId: link.member_id as number, purpose: link.purpose as string };
  });
}
