import type { ConsoleMe } from '@walletd/schemas';
import type { Request, RequestHandler, Router } from 'express';
import { BaseError } from '@walletd/core';
import type { Common } from '../platform/context';
import { acceptLink } from './links/acceptLink';
import { auditFailedSignIn, auditMember, auditSignedIn } from './signIn/auditSignIn';
import type { Clock } from '../platform/clock';
import { requireSession } from './sessions/consoleGuards';
import { clearSessionCookies, setSessionCookies } from './sessions/cookies';
import { loadCredentials } from './signIn/credentials';
import { confirmMfaEnrollment, startMfaEnrollment } from './totp/enrollMfa';
import { relyingParty } from './passkeys/passkeyRelyingParty';
import { stepUp } from './signIn/stepUp';
import { countSignInAttempt } from './signIn/signInLimits';
import { memberFactors } from './signIn/secondFactor';
import { markSteppedUp, revokeSession } from './sessions/sessions';
import { mfaEnrollmentPending, signIn } from './signIn/signIn';

const str = (v: unknown, name: string): string => {
  if (typeof v !== 'string' || v.length === 0 || v.length > 1024)
    throw new BaseError('validation_failed', `"${name}" must be a non-empty string`);
  return v;
};

/**
 * The console's sign-in routes (issue 44 §1: they lived inline in the console router): sign-in
 * (`POST /session`), a one-time link's password (`POST /links/:token`), sign-out, `GET /me`, TOTP
 * enrollment and step-up. Sign-ins (refused ones too), sign-outs and MFA enrollment go to the audit
 * log with the member and the address. Returns the session guard the other console routes use.
 */
export function mountSignInRoutes(r: Router, common: Common, clock: Clock): RequestHandler {
  const { db, masterKey, config } = common;
  const c = config.console;
  const limits = {
    idleTimeoutMs: c.idleTimeoutMs,
    absoluteTimeoutMs: c.absoluteTimeoutMs,
    lockoutFailures: c.lockoutFailures,
    lockoutMs: c.lockoutMs,
  };
  const secure = (req: Request) => req.secure || c.secureCookies;
  r.post('/session', async (req, res) => {
    const b = req.body ?? {};
    const ip = req.ip ?? '';
    // Before any lookup or hash; a refusal here is not a sign-in attempt (no audit row per hit).
    await countSignInAttempt(db, ip, clock(), c);
    const s = await signIn(
      {
        email: str(b.email, 'email'),
        password: str(b.password, 'password'),
        code: b.code === undefined ? undefined : str(b.code, 'code'),
        passkey: b.passkey ?? undefined,
        ip,
        userAgent: req.get('user-agent') ?? null,
      },
      { db, masterKey, nowMs: clock(), limits, rp: relyingParty(c) },
    ).catch(async (e: unknown) => {
      await auditFailedSignIn(db, e, b.email, ip);
      throw e;
    });
    setSessionCookies(res, s.token, s.csrf, secure(req));
    const member = await db('members').where({ id: s.memberId }).first('role', 'company_id');
    await auditSignedIn(db, { memberId: s.memberId, companyId: member.company_id }, s.secondFactor, ip);
    res.status(201).json({
      memberId: s.memberId,
      expiresAt: s.expiresAt.toISOString(),
      csrfToken: s.csrf,
      mfaEnrollmentRequired: await mfaEnrollmentPending(db, s.memberId, member.role),
    });
  });

  r.post('/links/:token', async (req, res) => {
    // Setting a password hashes it: the same budget as a sign-in.
    await countSignInAttempt(db, req.ip ?? '', clock(), c);
    const out = await acceptLink(db, String(req.params.token), req.body?.password, clock());
    // A password set through an invitation or a reset link: who, from where, which kind of link.
    const { company_id: companyId } = await db('members').where({ id: out.memberId }).first('company_id');
    await auditMember(db, { memberId: out.memberId, companyId }, 'member.password_set', req.ip ?? null, { link: out.purpose });
    res.json(out);
  });

  const session = requireSession(db, clock, limits);
  r.delete('/session', session, async (req, res) => {
    await revokeSession(db, req.memberSession!.id, clock());
    await auditMember(db, req.memberSession!, 'member.signed_out', req.ip ?? null);
    clearSessionCookies(res, secure(req));
    res.status(204).end();
  });

  r.get('/me', session, async (req, res) => {
    const s = req.memberSession!;
    const cred = await loadCredentials(db, s.memberId);
    const me: ConsoleMe = {
      memberId: s.memberId,
      companyId: s.companyId,
      email: s.email,
      role: s.role,
      mfaEnrolled: !!cred?.totp_enrolled,
      passkeys: (await memberFactors(db, s.memberId)).passkeys,
      mfaEnrollmentRequired: await mfaEnrollmentPending(db, s.memberId, s.role),
      sessionExpiresAt: s.expiresAt.toISOString(),
      steppedUpAt: s.steppedUpAt?.toISOString() ?? null,
    };
    res.json(me);
  });

  r.post('/mfa/enroll', session, async (req, res) => {
    const s = req.memberSession!;
    res.json(await startMfaEnrollment(db, masterKey, { memberId: s.memberId, email: s.email }, clock()));
  });

  r.post('/mfa/verify', session, async (req, res) => {
    const s = req.memberSession!;
    const now = clock();
    const out = await confirmMfaEnrollment(db, masterKey, s.memberId, req.body?.code, now);
    // The code just given is a fresh second factor.
    await markSteppedUp(db, s.id, now);
    await auditMember(db, s, 'member.mfa_enrolled', req.ip ?? null);
    res.json({ ...out, note: 'the recovery codes are shown once; store them now' });
  });

  r.post('/step-up', session, async (req, res) => {
    const now = clock();
    const proof = req.body?.passkey !== undefined ? { passkey: req.body.passkey as unknown } : { code: str(req.body?.code, 'code') };
    await stepUp(db, masterKey, req.memberSession!, proof, req.ip ?? null, now, { ...limits, rp: relyingParty(c) });
    res.json({ steppedUpAt: new Date(now).toISOString(), validForMs: c.stepUpMs });
  });
  return session;
}
