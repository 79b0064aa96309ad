import type { RequestHandler, Router } from 'express';
import { BaseError, isPublicError, parsePublicKey } from '@walletd/core';
import type { Common } from '../platform/context';
import { audit } from '../company/audit';
import { setEncryptionKey } from '../company/companies';
import { encryptionKeyStatus, keyFingerprint } from './encryptionKey';
import type { Clock } from '../platform/clock';
import { requireMfaEnrolled, requireRole } from '../members/sessions/memberGuards';
import { requireStepUp } from '../members/sessions/sessions';

/** The public key PEM as pasted, checked with the same words the CLI used (a private key is refused, never stored). */
function publicKeyField(v: unknown): string {
  if (typeof v !== 'string' || v.trim() === '' || v.length > 10_000)
    throw new BaseError('validation_failed', '"publicKeyPem" must be the PEM text of an X25519 public key', {
      details: { field: 'publicKeyPem' },
    });
  try {
    parsePublicKey(v);
  } catch (e) {
    if (isPublicError(e)) throw new BaseError('validation_failed', `"publicKeyPem": ${e.message}`, { details: { field: 'publicKeyPem' } });
    throw e;
  }
  return v;
}

/**
 * The company's encryption key (`/console/api/encryption-key`), the X25519 public key wallet
 * secrets are sealed to on export. Any member sees its fingerprint; only an owner replaces it,
 * with an enrolled authenticator and a step-up, since whoever holds the matching private key can
 * open every exported secret from then on.
 */
export function mountEncryptionKeyRoutes(r: Router, common: Common, clock: Clock, session: RequestHandler): void {
  const { db } = common;
  const enrolled = requireMfaEnrolled(db);

  r.get('/encryption-key', session, enrolled, async (req, res) => {
    res.json(await encryptionKeyStatus(db, req.memberSession!.companyId));
  });

  r.put('/encryption-key', session, enrolled, async (req, res) => {
    const s = req.memberSession!;
    requireRole(s, ['owner'], 'set the encryption key; only owners may');
    requireStepUp(s, clock(), common.config.console.stepUpMs);
    const pem = publicKeyField(req.body?.publicKeyPem);
    const before = await encryptionKeyStatus(db, s.companyId);
    // One transaction: a key is never replaced without its audit row.
    await db.transaction(async (trx) => {
      await setEncryptionKey(trx, s.companyId, pem);
      await audit(trx, {
        companyId: s.companyId,
        actorType: 'member',
        actorId: s.memberId,
        action: 'encryption_key.set',
        targetType: 'company',
        targetId: s.companyId,
        ip: req.ip ?? null,
        details: { fingerprint: keyFingerprint(pem), previousFingerprint: before.fingerprint },
      });
    });
    res.json(await encryptionKeyStatus(db, s.companyId));
  });
}
