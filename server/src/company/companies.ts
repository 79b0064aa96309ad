import { BaseError, ROLE_ACTIONS, isPlan, isRole, parsePublicKey, type Db, type Plan, type Role } from '@walletd/core';
import { recountVoterRequests } from '../withdrawals/requests/recountVoter';

export interface Company {
  id: number;
  name: string;
  plan: Plan;
  encryptionKeySet: boolean;
  createdAt: string;
}

interface CompanyRow {
  id: number;
  name: string;
  plan: Plan;
  encryption_public_key: string | null;
  created_at: Date;
}

const toCompany = (r: CompanyRow): Company => ({
  id: r.id,
  name: r.name,
  plan: r.plan,
  encryptionKeySet: r.encryption_public_key !== null,
  createdAt: r.created_at.toISOString(),
});

export async function createCompany(db: Db, input: { name: string; plan: string }): Promise<Company> {
  if (!input.name.trim()) throw new BaseError('validation_failed', 'company name must not be empty');
  if (!isPlan(input.plan)) throw new BaseError('validation_failed', `plan must be none, free or paid, not "${input.plan}"`);
  const [row] = await db('companies').insert({ name: input.name.trim(), plan: input.plan }).returning('*');
  return toCompany(row as CompanyRow);
}

export async function getCompany(db: Db, id: number): Promise<Company> {
  const row = (await db('companies').where({ id }).first()) as CompanyRow | undefined;
  if (!row) throw new BaseError('not_found', `company ${id} does not exist`);
  return toCompany(row);
}

export async function setPlan(db: Db, id: number, plan: string): Promise<Company> {
  if (!isPlan(plan)) throw new BaseError('validation_failed', `plan must be none, free or paid, not "${plan}"`);
  const [row] = await db('companies').where({ id }).update({ plan }).returning('*');
  if (!row) throw new BaseError('not_found', `company ${id} does not exist`);
  return toCompany(row as CompanyRow);
}

/** The company's X25519 public key, to which wallet secrets are sealed on export. */
export async function setEncryptionKey(db: Db, id: number, publicKeyPem: string): Promise<Company> {
  const key = parsePublicKey(publicKeyPem);
  const pem = key.export({ type: 'spki', format: 'pem' }).toString();
  const [row] = await db('companies')
    .where({ id })
    .update({ encryption_public_key: pem, encryption_key_set_at: db.fn.now() })
    .returning('*');
  if (!row) throw new BaseError('not_found', `company ${id} does not exist`);
  return toCompany(row as CompanyRow);
}

export interface Member {
  id: number;
  companyId: number;
  email: string;
  role: Role;
  createdAt: string;
  removedAt: string | null;
}

interface MemberRow {
  id: number;
  company_id: number;
  email: string;
  role: Role;
  created_at: Date;
  removed_at: Date | null;
}

const toMember = (r: MemberRow): Member => ({
  id: r.id,
  companyId: r.company_id,
  email: r.email,
  role: r.role,
  createdAt: r.created_at.toISOString(),
  removedAt: r.removed_at ? r.removed_at.toISOString() : null,
});

function checkRole(role: string): Role {
  if (!isRole(role)) throw new BaseError('validation_failed', `role must be owner, admin, developer or viewer, not "${role}"`);
  return role;
}

export async function addMember(db: Db, input: { companyId: number; email: string; role: string }): Promise<Member> {
  const role = checkRole(input.role);
  if (!/^[^\s@]+@[^\s@]+$/.test(input.email)) throw new BaseError('validation_failed', `"${input.email}" is not an email address`);
  await getCompany(db, input.companyId);
  try {
    const [row] = await db('members').insert({ company_id: input.companyId, email: input.email, role }).returning('*');
    return toMember(row as MemberRow);
  } catch (e) {
    if ((e as { code?: string }).code === '23505')
      throw new BaseError('conflict', `${input.email} is already a member of company ${input.companyId}`);
    throw e;
  }
}

/**
 * A company always keeps an owner: nobody else may make owners, so without one the company could
 * never again be managed in the console. The company's row is locked first, so two owners demoting
 * (or removing) each other at once cannot both succeed: the second sees the first's change.
 */
async function memberForChange(trx: Db, memberId: number, leavesOwners: boolean): Promise<MemberRow> {
  const found = (await trx('members').where({ id: memberId }).whereNull('removed_at').first('company_id')) as MemberRow | undefined;
  if (!found) throw new BaseError('not_found', `member ${memberId} does not exist`);
  await trx('companies').where({ id: found.company_id }).forUpdate().first('id');
  const m = (await trx('members').where({ id: memberId }).whereNull('removed_at').first()) as MemberRow | undefined;
  if (!m) throw new BaseError('not_found', `member ${memberId} does not exist`);
  if (m.role === 'owner' && leavesOwners) {
    const others = await trx('members')
      .where({ company_id: m.company_id, role: 'owner' })
      .whereNull('removed_at')
      .whereNot({ id: memberId })
      .count<{ n: string }[]>('id as n');
    if (Number(others[0]?.n ?? 0) === 0)
      throw new BaseError(
        'conflict',
        `${m.email} is the company's last owner: make another member owner first, a company always keeps one`,
      );
  }
  return m;
}

const mayApprove = (role: string): boolean => isRole(role) && ROLE_ACTIONS[role].has('withdrawals:create');

/**
 * A demotion out of the roles that may approve recounts the member's open approvals in the same
 * transaction (`recountVoterRequests`); a promotion into them starts a cooling-off of
 * `approverCoolingOffMs` (the console passes `console.approverCoolingOffMs`) before their
 * approvals count, as an invitation does.
 */
export async function setMemberRole(db: Db, memberId: number, role: string, opts: { approverCoolingOffMs?: number } = {}): Promise<Member> {
  const next = checkRole(role);
  return db.transaction(async (trx) => {
    const before = await memberForChange(trx, memberId, next !== 'owner');
    const promoted = !mayApprove(before.role) && mayApprove(next) && opts.approverCoolingOffMs !== undefined;
    const [row] = await trx('members')
      .where({ id: memberId })
      .update({ role: next, ...(promoted ? coolingOffFromNow(trx, opts.approverCoolingOffMs as number) : {}) })
      .returning('*');
    if (mayApprove(before.role) && !mayApprove(next)) await recountVoterRequests(trx, memberId, 'role');
    return toMember(row as MemberRow);
  });
}

/** The columns that start a new approver's cooling-off (migration 035), on the database's clock. */
export const coolingOffFromNow = (db: Db, ms: number) => ({
  approver_counts_from: db.raw("now() + (? * interval '1 millisecond')", [ms]),
  approver_confirmed_at: null,
  approver_confirmed_by: null,
});

/** Removal keeps the row (keys and audit entries point at it); their keys lose every action, their open approvals are recounted. */
export async function removeMember(db: Db, memberId: number): Promise<Member> {
  return db.transaction(async (trx) => {
    await memberForChange(trx, memberId, true);
    const [row] = await trx('members').where({ id: memberId }).update({ removed_at: trx.fn.now() }).returning('*');
    await recountVoterRequests(trx, memberId, 'removed');
    return toMember(row as MemberRow);
  });
}

export async function listMembers(db: Db, companyId: number): Promise<Member[]> {
  const rows = (await db('members').where({ company_id: companyId }).orderBy('id')) as MemberRow[];
  return rows.map(toMember);
}
