import type { Db } from '@walletd/core';
import { newToken, tokenHash } from '../sessions/secretToken';

export type LinkPurpose = 'invitation' | 'password_reset';

/** The path of a one-time link; the console's page (next) reads the token from it. */
export const linkPath = (token: string) => `/console/links/${token}`;

/**
 * Issues a one-time link for a member. Earlier unused links of the same purpose stop working: only
 * the last link printed or mailed is live.
 */
export async function issueLink(db: Db, memberId: number, purpose: LinkPurpose, nowMs: number, ttlMs: number): Promise<string> {
  const token = newToken();
  await db.transaction(async (trx) => {
    await trx('member_links')
      .where({ member_id: memberId, purpose })
      .whereNull('used_at')
      .update({ used_at: new Date(nowMs) });
    await trx('member_links').insert({
      token_hash: tokenHash(token),
      member_id: memberId,
      purpose,
      created_at: new Date(nowMs),
      expires_at: new Date(nowMs + ttlMs),
    });
  });
  return token;
}
