import express, { type Request, type Router } from 'express';
import { BaseError } from '@walletd/core';
import type { Common } from '../platform/context';
import { jsonBody } from '../http/body';
import { displayTextHygiene } from '../http/displayText';
import { acceptLink } from '../members/links/acceptLink';
import { auditFailedSignIn, auditMember, auditSignedIn } from '../members/signIn/auditSignIn';
import type { Clock } from '../platform/clock';
import { refuseApiKeys, requireSession, sameOrigin } from '../members/sessions/consoleGuards';
import { clearSessionCookies, setSessionCookies } from '../members/sessions/cookies';
import { loadCredentials } from '../members/signIn/credentials';
import { confirmMfaEnrollment, startMfaEnrollment } from '../members/totp/enrollMfa';
import { mountKeyRoutes } from '../keys/keyRoutes';
import { mountOverviewRoutes } from '../company/overviewRoutes';
import { mountPasskeyRoutes } from '../members/passkeys/passkeyRoutes';
import { relyingParty } from '../members/passkeys/passkeyRelyingParty';
import { mountMemberRoutes } from '../members/memberRoutes';
import { mountRequestRoutes } from '../withdrawals/requests/requestRoutes';
import { stepUp } from '../members/signIn/stepUp';
import { countSignInAttempt } from '../members/signIn/signInLimits';
import { mountTransactionRoutes } from '../wallets/transactionRoutes';
import { mountWithdrawalRoutes } from '../withdrawals/withdrawalRoutes';
import { mountAuditRoutes } from '../company/auditRoutes';
import { mountEncryptionKeyRoutes } from '../keys/encryptionKeyRoutes';
import { mountPolicyRoutes } from '../withdrawals/policies/policyRoutes';
import { mountSweepRoutes } from '../sweeps/sweepRoutes';
import { memberFactors } from '../members/signIn/secondFactor';
import { mountAddressBookRoutes } from '../withdrawals/addressBook/addressBookRoutes';
import { mountApprovalSettingsRoutes } from '../withdrawals/requests/approvalSettingsRoutes';
import { markSteppedUp, revokeSession } from '../members/sessions/sessions';
import { mfaEnrollmentPending, signIn } from '../members/signIn/signIn';
import { mountWebhookRoutes } from '../webhooks/webhookRoutes';

const str = (v: unknown, name: string): string => {
  if (typeof v !== 'string' || v.length === 0 || v.length > 1024)
    throw new BaseError('validation_failed', `"${name}" must be a non-empty string`);
  return v;
};

/**
 * The members' console API (`/console/api`): sign-in, sessions, MFA, one-time links, step-up, the
 * withdrawal-requests inbox, the overview, transactions and withdrawals. Sign-ins (refused ones too), sign-outs, MFA enrollment and votes go to
 * the audit log with the member and the address.
 */
export function consoleRouter(common: Common, clock: Clock): Router {
  const { db, masterKey, config } = common;
  const c = config.console;
  const limits = {
    idleTimeoutMs: c.idleTimeoutMs,
    absoluteTimeoutMs: c.absoluteTimeoutMs,
    lockoutFailures: c.lockoutFailures,
    lockoutMs: c.lockoutMs,
  };
  const secure = (req: Request) => req.secure || c.secureCookies;
  const r = express.Router();
  r.use((_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  r.use(refuseApiKeys);
  r.use(sameOrigin);
  r.use(jsonBody(config.server.bodyLimitBytes));
  r.use(displayTextHygiene);

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
    res.json({
      memberId: s.memberId,
      companyId: s.companyId,
      email: s.email,
      role: s.role,
      mfaEnrolled: !!cred?.totp_enrolled,
      passkeys: (await memberFactors(db, s.memberId)).passkeys,
      mfaEnrollmentRequired: await mfaEnrollmentPending(db, s.memberId, s.role),
      sessionExpiresAt: s.expiresAt.toISOString(),
      steppedUpAt: s.steppedUpAt?.toISOString() ?? null,
    });
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

  mountPasskeyRoutes(r, common, clock, session);
  mountRequestRoutes(r, common, clock, session);
  mountWebhookRoutes(r, common, clock, session);
  mountKeyRoutes(r, common, clock, session);
  mountOverviewRoutes(r, common, session);
  mountTransactionRoutes(r, common, session);
  mountWithdrawalRoutes(r, common, session);
  mountPolicyRoutes(r, common, clock, session);
  mountSweepRoutes(r, common, clock, session);
  mountAddressBookRoutes(r, common, clock, session);
  mountApprovalSettingsRoutes(r, common, clock, session);
  mountEncryptionKeyRoutes(r, common, clock, session);
  mountAuditRoutes(r, common, session);
  mountMemberRoutes(r, common, clock, session);

  r.use((_req, _res, next) => next(new BaseError('not_found', 'No such console endpoint')));
  return r;
}
