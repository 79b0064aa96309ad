import type { PublicKeyCredentialCreationOptionsJSON, RegistrationResponseJSON, verifyRegistrationResponse } from '@simplewebauthn/server';
import { BaseError, type Db } from '@walletd/core';
import { webauthn } from './webauthnModule';
import { consumeChallenge, issueChallenge } from './passkeyChallenges';
import type { RelyingParty } from './passkeyRelyingParty';
import { type PasskeyView, listPasskeys, passkeyView } from './passkeyStore';
import type { MemberSession } from '../sessions/sessions';

const MAX_PASSKEYS = 10;

/**
 * The options `navigator.credentials.create` takes: a challenge bound to this session, the member
 * as the user (the id is random per member row, no email in it), the passkeys they already have
 * excluded (the same authenticator twice is one factor, not two).
 */
export async function startPasskeyEnrollment(
  db: Db,
  rp: RelyingParty,
  s: MemberSession,
  nowMs: number,
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const keys = await listPasskeys(db, s.memberId);
  if (keys.length >= MAX_PASSKEYS) throw new BaseError('conflict', `A member keeps at most ${MAX_PASSKEYS} passkeys: remove one first`);
  const challenge = await issueChallenge(db, { memberId: s.memberId, sessionId: s.id, purpose: 'enroll' }, nowMs);
  return webauthn().generateRegistrationOptions({
    rpName: rp.rpName,
    rpID: rp.rpID,
    userName: s.email,
    userID: Buffer.from(`walletd-member:${s.memberId}`),
    challenge: Buffer.from(challenge, 'base64url'),
    attestationType: 'none',
    timeout: 60_000,
    excludeCredentials: keys.map((k) => ({ id: k.credential_id, transports: k.transports })),
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
  });
}

const NAME = /^[^\p{Cc}\p{Cf}]{1,64}$/u;

/**
 * Verifies the new credential against the session's enrollment challenge (used up either way), the
 * console's origin and RP id, with user verification, and stores it. Its counter starts at what
 * the authenticator reported.
 */
export async function finishPasskeyEnrollment(
  db: Db,
  rp: RelyingParty,
  s: MemberSession,
  body: { response?: unknown; name?: unknown },
  nowMs: number,
): Promise<PasskeyView> {
  const name = typeof body.name === 'string' ? body.name.trim() : '';
  if (!NAME.test(name)) throw new BaseError('validation_failed', '"name" must be 1-64 characters without control characters');
  const response = body.response as RegistrationResponseJSON;
  if (typeof response !== 'object' || response === null || typeof response.response !== 'object')
    throw new BaseError('validation_failed', '"response" must be the browser\'s registration response');
  let info: Awaited<ReturnType<typeof verifyRegistrationResponse>>['registrationInfo'];
  try {
    const out = await webauthn().verifyRegistrationResponse({
      response,
      expectedChallenge: (c) => consumeChallenge(db, { memberId: s.memberId, sessionId: s.id, purpose: 'enroll' }, c, nowMs),
      expectedOrigin: rp.origin,
      expectedRPID: rp.rpID,
      requireUserVerification: true,
    });
    info = out.verified ? out.registrationInfo : undefined;
  } catch {
    info = undefined;
  }
  if (!info) throw new BaseError('validation_failed', 'The passkey could not be verified: start again from this page');
  const c = info.credential;
  const inserted = await db('member_passkeys')
    .insert({
      member_id: s.memberId,
      credential_id: c.id,
      public_key: Buffer.from(c.publicKey),
      counter: c.counter,
      transports: JSON.stringify(c.transports ?? []),
      name,
      created_at: new Date(nowMs),
    })
    .onConflict('credential_id')
    .ignore()
    .returning('*');
  if (inserted.length === 0) throw new BaseError('conflict', 'This passkey is already enrolled');
  return passkeyView(inserted[0]);
}
