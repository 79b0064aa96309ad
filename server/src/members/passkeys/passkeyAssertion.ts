import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import type { Db } from '@walletd/core';
import { type ChallengeBinding, consumeChallenge, issueChallenge } from './passkeyChallenges';
import type { RelyingParty } from './passkeyRelyingParty';
import { advanceCounter, findPasskey, listPasskeys } from './passkeyStore';
import { webauthn } from './webauthnModule';

/** The options `navigator.credentials.get` takes: a fresh challenge and the member's passkeys. */
export async function passkeyAssertionOptions(
  db: Db,
  rp: RelyingParty,
  b: ChallengeBinding,
  nowMs: number,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const challenge = await issueChallenge(db, b, nowMs);
  const keys = await listPasskeys(db, b.memberId);
  return webauthn().generateAuthenticationOptions({
    rpID: rp.rpID,
    challenge: Buffer.from(challenge, 'base64url'),
    allowCredentials: keys.map((k) => ({ id: k.credential_id, transports: k.transports })),
    userVerification: 'required',
    timeout: 60_000,
  });
}

/** Why an assertion was refused: `counter` is a signature counter that did not move forward (a clone). */
export type AssertionOutcome = { ok: true; passkeyId: number } | { ok: false; reason: 'invalid' | 'counter' };

const isAssertion = (v: unknown): v is AuthenticationResponseJSON => {
  const r = v as AuthenticationResponseJSON | null;
  return typeof r === 'object' && r !== null && typeof r.id === 'string' && typeof r.response === 'object' && r.response !== null;
};

/**
 * Checks a passkey assertion: one of the member's credentials, signed over an unused challenge
 * issued to this member (and session) for this purpose, from the console's origin and RP id, with
 * user verification, and a signature counter above the stored one (both 0 is an authenticator
 * that keeps none). The challenge is used up whatever the outcome; the counter moves forward.
 */
export async function verifyPasskeyAssertion(
  db: Db,
  rp: RelyingParty,
  b: ChallengeBinding,
  response: unknown,
  nowMs: number,
): Promise<AssertionOutcome> {
  if (!isAssertion(response)) return { ok: false, reason: 'invalid' };
  const row = await findPasskey(db, b.memberId, response.id);
  if (!row) return { ok: false, reason: 'invalid' };
  try {
    const out = await webauthn().verifyAuthenticationResponse({
      response,
      expectedChallenge: (c) => consumeChallenge(db, b, c, nowMs),
      expectedOrigin: rp.origin,
      expectedRPID: rp.rpID,
      credential: {
        id: row.credential_id,
        publicKey: new Uint8Array(row.public_key),
        counter: Number(row.counter),
        transports: row.transports,
      },
      requireUserVerification: true,
    });
    if (!out.verified) return { ok: false, reason: 'invalid' };
    if (!(await advanceCounter(db, row, out.authenticationInfo.newCounter, nowMs))) return { ok: false, reason: 'counter' };
    return { ok: true, passkeyId: row.id };
  } catch (e) {
    // The library says a counter regression in its message; anything else is a bad assertion.
    return { ok: false, reason: e instanceof Error && /counter/i.test(e.message) ? 'counter' : 'invalid' };
  }
}
