import type { AuthenticatorTransport } from '@simplewebauthn/server';
import type { Db } from '@walletd/core';
import type { ConsolePasskey } from '@walletd/schemas';

export interface PasskeyRow {
  id: number;
  member_id: number;
  credential_id: string;
  public_key: Buffer;
  counter: string;
  transports: AuthenticatorTransport[];
  name: string;
  created_at: Date;
  last_used_at: Date | null;
}

/** What the console lists: the contract's ConsolePasskey. */
export type PasskeyView = ConsolePasskey;

export const passkeyView = (r: PasskeyRow): PasskeyView => ({
  id: r.id,
  name: r.name,
  transports: r.transports,
  createdAt: r.created_at.toISOString(),
  lastUsedAt: r.last_used_at?.toISOString() ?? null,
});

export const listPasskeys = (db: Db, memberId: number): Promise<PasskeyRow[]> =>
  db<PasskeyRow>('member_passkeys').where({ member_id: memberId }).orderBy('id');

export const findPasskey = (db: Db, memberId: number, credentialId: string): Promise<PasskeyRow | undefined> =>
  db<PasskeyRow>('member_passkeys').where({ member_id: memberId, credential_id: credentialId }).first();

/**
 * Moves a credential's signature counter to what the authenticator just signed, only from the
 * value the check was made against: of two racing uses of one counter value, one wins.
 */
export async function advanceCounter(db: Db, row: PasskeyRow, newCounter: number, nowMs: number): Promise<boolean> {
  const n = await db('member_passkeys')
    .where({ id: row.id, counter: row.counter })
    .update({ counter: newCounter, last_used_at: new Date(nowMs) });
  return n === 1;
}
