import type { RequestHandler, Router } from 'express';
import { BaseError } from '@walletd/core';
import type { Common } from '../../platform/context';
import { auditMember } from '../signIn/auditSignIn';
import type { Clock } from '../../platform/clock';
import { finishPasskeyEnrollment, startPasskeyEnrollment } from './enrollPasskey';
import { passkeyAssertionOptions } from './passkeyAssertion';
import { relyingParty } from './passkeyRelyingParty';
import { listPasskeys, passkeyView } from './passkeyStore';
import { hasSecondFactor, memberFactors } from '../signIn/secondFactor';
import { type MemberSession, requireStepUp } from '../sessions/sessions';

/**
 * `/console/api/passkeys` (list, enroll, remove) and the step-up challenge. Enrolling needs a
 * step-up once the member has any second factor (a stolen session must not add its own key);
 * the first factor of a member who has none is enrolled on the password session, like TOTP.
 * Removing always needs a step-up and never leaves a member without a second factor.
 */
export function mountPasskeyRoutes(r: Router, common: Common, clock: Clock, session: RequestHandler): void {
  const { db, config } = common;
  const rp = () => relyingParty(config.console);
  const stepUpIfEnrolled = async (s: MemberSession, now: number) => {
    if (hasSecondFactor(await memberFactors(db, s.memberId))) requireStepUp(s, now, config.console.stepUpMs);
  };

  r.get('/passkeys', session, async (req, res) => {
    res.json({ items: (await listPasskeys(db, req.memberSession!.memberId)).map(passkeyView) });
  });

  r.post('/passkeys/options', session, async (req, res) => {
    const s = req.memberSession!;
    const now = clock();
    await stepUpIfEnrolled(s, now);
    res.json(await startPasskeyEnrollment(db, rp(), s, now));
  });

  r.post('/passkeys', session, async (req, res) => {
    const s = req.memberSession!;
    const now = clock();
    await stepUpIfEnrolled(s, now);
    const key = await finishPasskeyEnrollment(db, rp(), s, req.body ?? {}, now);
    await auditMember(db, s, 'member.passkey_enrolled', req.ip ?? null, { passkeyId: key.id, name: key.name });
    res.status(201).json(key);
  });

  r.delete('/passkeys/:id', session, async (req, res) => {
    const s = req.memberSession!;
    const now = clock();
    requireStepUp(s, now, config.console.stepUpMs);
    const id = Number(req.params.id);
    if (!Number.isSafeInteger(id) || id <= 0) throw new BaseError('not_found', 'No such passkey');
    await db.transaction(async (trx) => {
      // The member's credentials row is the lock two concurrent removals of their last two keys share.
      await trx('member_credentials').where({ member_id: s.memberId }).forUpdate().first();
      const row = await trx('member_passkeys').where({ id, member_id: s.memberId }).first('id', 'name');
      if (!row) throw new BaseError('not_found', 'No such passkey');
      const f = await memberFactors(trx, s.memberId);
      if (!hasSecondFactor({ totp: f.totp, passkeys: f.passkeys - 1 }))
        throw new BaseError('conflict', 'This is your last second factor: enroll another passkey or an authenticator app first');
      await trx('member_passkeys').where({ id }).delete();
    });
    await auditMember(db, s, 'member.passkey_removed', req.ip ?? null, { passkeyId: id });
    res.status(204).end();
  });

  r.post('/step-up/passkey-options', session, async (req, res) => {
    const s = req.memberSession!;
    if ((await memberFactors(db, s.memberId)).passkeys === 0) throw new BaseError('conflict', 'You have no passkey: enroll one first');
    res.json(await passkeyAssertionOptions(db, rp(), { memberId: s.memberId, sessionId: s.id, purpose: 'step_up' }, clock()));
  });
}
