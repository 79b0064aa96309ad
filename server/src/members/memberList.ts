import { BaseError, type Db } from '@walletd/core';
import type { ConsoleMember } from '@walletd/schemas';

export type { ConsoleMember };

interface Row {
  id: number;
  email: string;
  role: string;
  created_at: Date;
  has_password: boolean;
  mfa_enrolled: boolean;
  last_sign_in: Date | null;
  cooling_until: Date | null;
  approver_confirmed_by: number | null;
}

const toView = (r: Row): ConsoleMember => ({
  id: r.id,
  email: r.email,
  role: r.role,
  mfaEnrolled: r.mfa_enrolled,
  invitationPending: !r.has_password,
  lastSignInAt: r.last_sign_in ? new Date(r.last_sign_in).toISOString() : null,
  createdAt: r.created_at.toISOString(),
  approverCoolingOffUntil: r.cooling_until ? new Date(r.cooling_until).toISOString() : null,
  approverConfirmedBy: r.approver_confirmed_by,
});

function query(db: Db, companyId: number) {
  return db('members as m')
    .leftJoin('member_credentials as c', 'c.member_id', 'm.id')
    .where('m.company_id', companyId)
    .whereNull('m.removed_at')
    .select(
      'm.id',
      'm.email',
      'm.role',
      'm.created_at',
      'm.approver_confirmed_by',
      db.raw(
        'CASE WHEN m.approver_counts_from > now() AND m.approver_confirmed_at IS NULL THEN m.approver_counts_from END AS cooling_until',
      ),
      db.raw('c.password_hash IS NOT NULL AS has_password'),
      // A second factor of either kind: a confirmed authenticator app or a passkey.
      db.raw('(coalesce(c.totp_enrolled, false) OR EXISTS (SELECT 1 FROM member_passkeys p WHERE p.member_id = m.id)) AS mfa_enrolled'),
      db.raw('(SELECT max(s.created_at) FROM member_sessions s WHERE s.member_id = m.id) AS last_sign_in'),
    );
}

/** The company's active members, oldest first. */
export async function listCompanyMembers(db: Db, companyId: number): Promise<ConsoleMember[]> {
  return ((await query(db, companyId).orderBy('m.id')) as Row[]).map(toView);
}

/** One active member of this company; another company's member (or a removed one) is 404. */
export async function companyMember(db: Db, companyId: number, id: number): Promise<ConsoleMember> {
  const row = (await query(db, companyId).where('m.id', id).first()) as Row | undefined;
  if (!row) throw new BaseError('not_found', `member ${id} does not exist`);
  return toView(row);
}
