import { type Db, ROLE_ACTIONS, isRole } from '@walletd/core';
import { addMember, coolingOffFromNow } from '../../company/companies';
import { type LinkPurpose, issueLink, linkPath } from './memberLinks';

export interface Invitation {
  memberId: number;
  email: string;
  role: string;
  purpose: LinkPurpose;
  /** The one-time token and the path to open it at (on the console's address). */
  token: string;
  path: string;
  expiresAt: string;
}

/** An active member of the company with that email (compared without case), if any. */
export function findMemberByEmail(
  db: Db,
  companyId: number,
  email: string,
): Promise<{ id: number; email: string; role: string } | undefined> {
  return db('members')
    .where({ company_id: companyId })
    .whereRaw('lower(email) = lower(?)', [email])
    .whereNull('removed_at')
    .first('id', 'email', 'role');
}

/**
 * A one-time link for an existing member: a password reset when they have a password, else a
 * fresh invitation (the earlier one expired or was lost). Earlier unused links of that kind die.
 */
export async function linkForMember(
  db: Db,
  member: { id: number; email: string; role: string },
  nowMs: number,
  ttlMs: number,
): Promise<Invitation> {
  const hasPassword = !!(await db('member_credentials').where({ member_id: member.id }).whereNotNull('password_hash').first('member_id'));
  const purpose: LinkPurpose = hasPassword ? 'password_reset' : 'invitation';
  const token = await issueLink(db, member.id, purpose, nowMs, ttlMs);
  return {
    memberId: member.id,
    email: member.email,
    role: member.role,
    purpose,
    token,
    path: linkPath(token),
    expiresAt: new Date(nowMs + ttlMs).toISOString(),
  };
}

/**
 * Adds a member and issues their invitation link. An email that is already a member of the company
 * gets a password-reset link instead when it has a password, or a fresh invitation when it does not.
 */
export async function inviteMember(
  db: Db,
  input: { companyId: number; email: string; role: string },
  nowMs: number,
  ttlMs: number,
  /** Set by the console (a person invites): a new member who may approve starts their cooling-off. */
  opts: { approverCoolingOffMs?: number } = {},
): Promise<Invitation> {
  let member = await findMemberByEmail(db, input.companyId, input.email);
  if (!member) {
    member = await addMember(db, input);
    if (opts.approverCoolingOffMs !== undefined && isRole(member.role) && ROLE_ACTIONS[member.role].has('withdrawals:create'))
      await db('members').where({ id: member.id }).update(coolingOffFromNow(db, opts.approverCoolingOffMs));
  }
  return linkForMember(db, member, nowMs, ttlMs);
}
