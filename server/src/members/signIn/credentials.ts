import type { Db, Envelope, MasterKey } from '@walletd/core';

export interface CredentialsRow {
  member_id: number;
  password_hash: string | null;
  totp_envelope: Envelope | null;
  totp_enrolled: boolean;
  totp_last_step: string | null;
}

export function loadCredentials(db: Db, memberId: number): Promise<CredentialsRow | undefined> {
  return db<CredentialsRow>('member_credentials').where({ member_id: memberId }).first();
}

/** The envelope's associated data names the member: a secret copied onto another row fails to open. */
export const totpContext = (memberId: number) => `member-totp:${memberId}`;

export function sealTotpSecret(masterKey: MasterKey, memberId: number, secretBase32: string): Envelope {
  return masterKey.seal(Buffer.from(secretBase32, 'utf8'), totpContext(memberId));
}

export function openTotpSecret(masterKey: MasterKey, memberId: number, envelope: Envelope): string {
  return masterKey.open(envelope, totpContext(memberId)).toString('utf8');
}

/** Roles that can approve withdrawal requests or manage the company: MFA is not optional for them. */
export const MFA_REQUIRED_ROLES = new Set(['owner', 'admin']);
