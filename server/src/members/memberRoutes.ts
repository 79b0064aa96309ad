import type { MemberLink, NoUndeclared, Undeclared } from '@walletd/schemas';
import type { Request, RequestHandler, Router } from 'express';
import { BaseError } from '@walletd/core';
import type { Common } from '../platform/context';
import { getCompany, removeMember, setMemberRole } from '../company/companies';
import { createMailer } from './links/mailer';
import { type LinkAnswer, deliverLink } from './links/deliverLink';
import { audit } from '../company/audit';
import type { Clock } from '../platform/clock';
import { type Invitation, findMemberByEmail, inviteMember, linkForMember } from './links/inviteMember';
import { requireMfaEnrolled } from './sessions/memberGuards';
import { companyMember, listCompanyMembers } from './memberList';
import {
  checkRoleChange,
  emailField,
  isPromotion,
  memberIdParam,
  requireMayGrant,
  requireMayTouch,
  requireMemberManager,
  requireOwnerConfirming,
  roleField,
} from './memberRules';
import { confirmApprover } from '../withdrawals/requests/confirmApprover';
import { requireStepUp, revokeMemberSessions } from './sessions/sessions';

/** The link's answer is spread into the member link: a field it grows must be declared in the contract first. */
export type LinkAnswerDeclared = NoUndeclared<Undeclared<MemberLink, LinkAnswer>>;

/** The one-time link as a URL on the console's address as the inviter reached it: mailed, or shown once; never stored or logged. */
const linkUrl = (req: Request, inv: Invitation) => `${req.protocol}://${req.get('host')}${inv.path}`;

/**
 * Members and roles (`/console/api/members`), behind `requireSession` and an enrolled authenticator.
 * Every member reads the list; owners and admins manage it. Checks run cheapest-refusal first and the
 * step-up last, so a refused change never spends the member's authenticator code. The last owner is
 * kept by the service itself (409). Audit rows name the target, never a link's token.
 */
export function mountMemberRoutes(r: Router, common: Common, clock: Clock, session: RequestHandler): void {
  const { db } = common;
  const { stepUpMs, linkTtlMs, approverCoolingOffMs } = common.config.console;
  const enrolled = requireMfaEnrolled(db);
  const mailer = createMailer(common.config.mail, common.logger);
  const linkAnswer = async (req: Request, inv: Invitation) =>
    deliverLink(mailer, inv, linkUrl(req, inv), (await getCompany(db, req.memberSession!.companyId)).name);
  const target = (req: Request) => companyMember(db, req.memberSession!.companyId, memberIdParam(req.params.id));
  const record = (req: Request, action: string, targetId: number, details: Record<string, unknown>) => {
    const s = req.memberSession!;
    return audit(db, {
      companyId: s.companyId,
      actorType: 'member',
      actorId: s.memberId,
      action,
      targetType: 'member',
      targetId,
      ip: req.ip ?? null,
      details,
    });
  };

  r.get('/members', session, enrolled, async (req, res) => {
    res.json({ data: await listCompanyMembers(db, req.memberSession!.companyId) });
  });

  r.post('/members', session, enrolled, async (req, res) => {
    const s = req.memberSession!;
    requireMemberManager(s);
    const email = emailField(req.body?.email);
    const role = roleField(req.body?.role);
    requireMayGrant(s, role);
    const existing = await findMemberByEmail(db, s.companyId, email);
    if (existing)
      throw new BaseError(
        'conflict',
        `${existing.email} is already a member (${existing.role}): change their role or issue a reset link instead`,
      );
    requireStepUp(s, clock(), stepUpMs);
    const inv = await inviteMember(db, { companyId: s.companyId, email, role }, clock(), linkTtlMs, { approverCoolingOffMs });
    const answer = await linkAnswer(req, inv);
    await record(req, 'member.invited', inv.memberId, { email: inv.email, role, delivery: 'mailedTo' in answer ? 'mail' : 'shown' });
    const link: MemberLink = { member: await companyMember(db, s.companyId, inv.memberId), ...answer };
    res.status(201).json(link);
  });

  r.patch('/members/:id', session, enrolled, async (req, res) => {
    const s = req.memberSession!;
    requireMemberManager(s);
    const m = await target(req);
    const role = roleField(req.body?.role);
    checkRoleChange(s, m, role);
    if (isPromotion(m.role, role)) requireStepUp(s, clock(), stepUpMs);
    await setMemberRole(db, m.id, role, { approverCoolingOffMs });
    await record(req, 'member.role_changed', m.id, { email: m.email, from: m.role, to: role });
    res.json(await companyMember(db, s.companyId, m.id));
  });

  r.delete('/members/:id', session, enrolled, async (req, res) => {
    const s = req.memberSession!;
    requireMemberManager(s);
    const m = await target(req);
    requireMayTouch(s, m, 'remove');
    await removeMember(db, m.id);
    // Sessions already stop at the member's removal; revoking them too keeps the table honest.
    await revokeMemberSessions(db, m.id, clock());
    await record(req, 'member.removed', m.id, { email: m.email, role: m.role });
    res.json({ ...m, removed: true });
  });

  // Ends a new approver's cooling-off early: another owner vouches for them, with a step-up.
  r.post('/members/:id/confirm-approver', session, enrolled, async (req, res) => {
    const s = req.memberSession!;
    const m = await target(req);
    requireOwnerConfirming(s, m);
    requireStepUp(s, clock(), stepUpMs);
    const out = await confirmApprover(common, m.id, s.memberId);
    await record(req, 'member.approver_confirmed', m.id, { email: m.email, approvedRequests: out.settled });
    res.json({ member: await companyMember(db, s.companyId, m.id), ...out });
  });

  r.post('/members/:id/reset-link', session, enrolled, async (req, res) => {
    const s = req.memberSession!;
    requireMemberManager(s);
    const m = await target(req);
    requireMayTouch(s, m, 'issue a reset link for');
    requireStepUp(s, clock(), stepUpMs);
    const inv = await linkForMember(db, m, clock(), linkTtlMs);
    const answer = await linkAnswer(req, inv);
    await record(req, 'member.reset_link_issued', m.id, {
      email: m.email,
      purpose: inv.purpose,
      delivery: 'mailedTo' in answer ? 'mail' : 'shown',
    });
    const link: MemberLink = { member: m, ...answer };
    res.json(link);
  });
}
