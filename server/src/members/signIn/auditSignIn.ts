import { BaseError, type Db } from '@walletd/core';
import { audit } from '../../company/audit';
import { BAD_CREDENTIALS, type SecondFactorUsed, memberRefused } from './signIn';

/** A member's own console action, in the company's audit log with where it came from. */
export async function auditMember(
  db: Db,
  m: { memberId: number; companyId: number },
  action: string,
  ip: string | null,
  details?: Record<string, unknown>,
): Promise<void> {
  await audit(db, { companyId: m.companyId, actorType: 'member', actorId: m.memberId, action, ip, details });
}

/**
 * A sign-in that succeeded. One passed with a recovery code also writes
 * `member.mfa_recovery_code_used` with how many codes are left: it usually means the authenticator
 * is lost, which an owner wants to see (and a stolen code used by someone else even more).
 */
export async function auditSignedIn(
  db: Db,
  m: { memberId: number; companyId: number },
  secondFactor: SecondFactorUsed,
  ip: string | null,
): Promise<void> {
  await auditMember(db, m, 'member.signed_in', ip, secondFactor ? { secondFactor } : undefined);
  if (secondFactor !== 'recovery_code') return;
  const [left] = (await db('member_recovery_codes').where({ member_id: m.memberId }).whereNull('used_at').count({ n: '*' })) as {
    n: string | number;
  }[];
  await auditMember(db, m, 'member.mfa_recovery_code_used', ip, { recoveryCodesLeft: Number(left?.n ?? 0) });
}

const reasonOf = (e: unknown): string | null => {
  if (!(e instanceof BaseError)) return null;
  if (e.code === 'rate_limited') return 'locked_out';
  // The console's sign-in page sends the password first and the code second: a right password
  // without a code is that first step, not a refused sign-in (and counts toward no lockout).
  if (e.code === 'unauthorized') return e.message === BAD_CREDENTIALS ? 'bad_credentials' : 'second_factor_wrong';
  return null;
};

/**
 * The one company a refused sign-in belongs to: the member's whose password matched (a wrong second
 * factor), else the only company with a member of that email. Otherwise no company (the operator's
 * view): with several companies and no password matching, nothing says whose member was tried, and
 * writing the row to each would show every company the others' members' addresses and times.
 */
async function companyOfAttempt(db: Db, error: unknown, tried: string): Promise<number | null> {
  const memberId = memberRefused(error);
  if (memberId !== undefined)
    return ((await db('members').where({ id: memberId }).first('company_id')) as { company_id: number }).company_id;
  const companies = (await db('members').whereRaw('lower(email) = lower(?)', [tried]).whereNull('removed_at').distinct('company_id')) as {
    company_id: number;
  }[];
  return companies.length === 1 ? (companies[0] as { company_id: number }).company_id : null;
}

/**
 * A refused sign-in, recorded whatever the reason while the response stays the same for all of
 * them. The email is kept as typed (trimmed, at most 254 characters): an operator investigating an
 * attack needs to see which account was tried, and a hash of an email is no secret (emails are
 * guessable). The row goes to one company at most (companyOfAttempt).
 * Errors that are the caller's mistake (a missing field) are not sign-in attempts, nor is a right
 * password sent without its code (the page's first step).
 */
export async function auditFailedSignIn(db: Db, error: unknown, email: unknown, ip: string | null): Promise<void> {
  const reason = reasonOf(error);
  if (!reason || typeof email !== 'string') return;
  const tried = email.trim().slice(0, 254);
  const companyId = await companyOfAttempt(db, error, tried);
  await audit(db, { companyId, actorType: 'system', action: 'member.sign_in_failed', ip, details: { email: tried, reason } });
}
