import { randomBytes } from 'node:crypto';
import type { Db } from '@walletd/core';
import { tokenHash } from '../sessions/secretToken';

export const RECOVERY_CODE_COUNT = 10;

const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/** `xxxxx-xxxxx` from an alphabet without look-alikes: about 49 bits each. */
function newCode(): string {
  const bytes = randomBytes(10);
  const chars = [...bytes].map((b) => ALPHABET[b % ALPHABET.length]).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

function normalize(code: string): string {
  return code.trim().toLowerCase().replace(/\s+/g, '');
}

/** Replaces a member's recovery codes with ten new ones; the plain codes are returned once. */
export async function issueRecoveryCodes(db: Db, memberId: number): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newCode);
  await db.transaction(async (trx) => {
    await trx('member_recovery_codes').where({ member_id: memberId }).delete();
    await trx('member_recovery_codes').insert(codes.map((c) => ({ member_id: memberId, code_hash: tokenHash(normalize(c)) })));
  });
  return codes;
}

export function looksLikeRecoveryCode(code: string): boolean {
  return /^[a-z0-9]{5}-[a-z0-9]{5}$/.test(normalize(code));
}

/** Uses a recovery code: true once per code, in one statement so two racing uses cannot both win. */
export async function useRecoveryCode(db: Db, memberId: number, code: string, now: Date): Promise<boolean> {
  const n = await db('member_recovery_codes')
    .where({ member_id: memberId, code_hash: tokenHash(normalize(code)) })
    .whereNull('used_at')
    .update({ used_at: now });
  return n === 1;
}
