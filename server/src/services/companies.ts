import { BaseError, isPlan, isRole, parsePublicKey, type Db, type Plan, type Role } from '@walletd/core';

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

export async function setMemberRole(db: Db, memberId: number, role: string): Promise<Member> {
  const [row] = await db('members')
    .where({ id: memberId })
    .whereNull('removed_at')
    .update({ role: checkRole(role) })
    .returning('*');
  if (!row) throw new BaseError('not_found', `member ${memberId} does not exist`);
  return toMember(row as MemberRow);
}

/** Removal keeps the row (keys and audit entries point at it); their keys lose every action. */
export async function removeMember(db: Db, memberId: number): Promise<Member> {
  const [row] = await db('members').where({ id: memberId }).whereNull('removed_at').update({ removed_at: db.fn.now() }).returning('*');
  if (!row) throw new BaseError('not_found', `member ${memberId} does not exist`);
  return toMember(row as MemberRow);
}

export async function listMembers(db: Db, companyId: number): Promise<Member[]> {
  const rows = (await db('members').where({ company_id: companyId }).orderBy('id')) as MemberRow[];
  return rows.map(toMember);
}
