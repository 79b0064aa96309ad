import type { ConsoleEncryptionKey } from '@walletd/schemas';
import { createHash } from 'node:crypto';
import { type Db, parsePublicKey } from '@walletd/core';

/**
 * SHA-256 of the key's SubjectPublicKeyInfo (DER), in hex: what
 * `openssl pkey -pubin -in company.pub -outform DER | sha256sum` prints for the same key, so a
 * person can check the registered key is the one they hold the private half of.
 */
export function keyFingerprint(publicKeyPem: string): string {
  return createHash('sha256')
    .update(parsePublicKey(publicKeyPem).export({ type: 'spki', format: 'der' }))
    .digest('hex');
}

/** The console's contract (@walletd/schemas). */
export type EncryptionKeyStatus = ConsoleEncryptionKey;

/** The company's sealing key as the console shows it: never the key itself, its fingerprint, when and by whom. */
export async function encryptionKeyStatus(db: Db, companyId: number): Promise<EncryptionKeyStatus> {
  const c = (await db('companies').where({ id: companyId }).first('encryption_public_key', 'encryption_key_set_at')) as
    | { encryption_public_key: string | null; encryption_key_set_at: Date | null }
    | undefined;
  if (!c?.encryption_public_key) return { set: false, fingerprint: null, setAt: null, setBy: null };
  const fingerprint = keyFingerprint(c.encryption_public_key);
  // The audit row of this very key (its fingerprint), so a key set later by an operator is not credited to a member.
  const row = (await db('audit_log as a')
    .joinRaw('JOIN members m ON m.id::text = a.actor_id AND m.company_id = a.company_id')
    .whereRaw("a.company_id = ? AND a.action = 'encryption_key.set' AND a.actor_type = 'member'", [companyId])
    .whereRaw("a.details->>'fingerprint' = ?", [fingerprint])
    .orderBy('a.id', 'desc')
    .first('m.id', 'm.email')) as { id: number; email: string } | undefined;
  return {
    set: true,
    fingerprint,
    setAt: c.encryption_key_set_at?.toISOString() ?? null,
    setBy: row ? { memberId: row.id, email: row.email } : null,
  };
}
