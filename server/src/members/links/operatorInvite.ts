import { BaseError, type Db } from '@walletd/core';
import { getCompany } from '../../company/companies';
import { audit } from '../../company/audit';
import { type Invitation, findMemberByEmail, inviteMember } from './inviteMember';

/** Why the operator's shell may not issue this link, in words; null when it may. */
export type OperatorRefusal = string | null;

/**
 * The operator's one way to issue a member link from the shell: giving a company an owner while it
 * has none who can sign in (password and authenticator both set): the first owner, or a new link
 * for an owner who never finished setting up. Anything else is a person's decision, made in the
 * console by a signed-in owner or admin with a step-up; the shell authenticates nobody.
 */
export async function operatorInviteRefusal(db: Db, companyId: number, email: string, role: string): Promise<OperatorRefusal> {
  await getCompany(db, companyId);
  const toConsole = 'invite, promote, remove members and issue reset links in the console (Members page) as an owner or admin';
  if (role !== 'owner') return `the CLI invites only a company's owner (bootstrap and recovery); ${toConsole}`;
  const ready = await db('members as m')
    .join('member_credentials as c', 'c.member_id', 'm.id')
    .where({ 'm.company_id': companyId, 'm.role': 'owner', 'c.totp_enrolled': true })
    .whereNull('m.removed_at')
    .whereNotNull('c.password_hash')
    .first('m.email');
  if (ready) return `company ${companyId} has an owner who can sign in (${ready.email}): ${toConsole}`;
  const existing = await findMemberByEmail(db, companyId, email);
  if (existing && existing.role !== 'owner') return `${existing.email} is a member with role ${existing.role}, not an owner; ${toConsole}`;
  return null;
}

/** The owner's link, issued by the operator (see operatorInviteRefusal), with an audit row that says so. */
export async function operatorInvite(db: Db, companyId: number, email: string, nowMs: number, ttlMs: number): Promise<Invitation> {
  const refusal = await operatorInviteRefusal(db, companyId, email, 'owner');
  if (refusal) throw new BaseError('forbidden', refusal);
  const inv = await inviteMember(db, { companyId, email, role: 'owner' }, nowMs, ttlMs);
  await audit(db, {
    companyId,
    actorType: 'operator',
    action: 'member.invited',
    targetType: 'member',
    targetId: inv.memberId,
    details: { email: inv.email, role: inv.role, purpose: inv.purpose, via: 'cli' },
  });
  return inv;
}
