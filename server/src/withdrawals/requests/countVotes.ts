import { BaseError, type Db, ROLE_ACTIONS, isRole } from '@walletd/core';
import type { Knex } from 'knex';

/** Why an approval does not count toward the quorum now. */
export type DiscountReason = 'removed' | 'role' | 'proposer' | 'cooling_off';

export interface CountedVote {
  memberId: number;
  decision: 'approve' | 'reject';
  at: Date;
  /** Whether this approval counts now (a rejection always stands: one rejects the request). */
  counts: boolean;
  reason?: DiscountReason;
  /** While `cooling_off`: when the member's approvals start to count. */
  countsFrom?: string;
}

export interface QuorumCount {
  /** Distinct members whose approval counts now. */
  approvals: number;
  votes: CountedVote[];
}

interface VoteRow {
  member_id: number;
  decision: 'approve' | 'reject';
  created_at: Date;
  role: string;
  removed_at: Date | null;
  approver_counts_from: Date | null;
  cooling: boolean;
}

/**
 * The one place the quorum is counted (the vote, prepare, sign, a member's removal or demotion,
 * the API's and the console's views all ask here): an approval counts only while its voter is
 * an active member whose role may approve, did not propose the request (nor create the API key
 * that proposed it), and is past their cooling-off or confirmed by another owner. Read against
 * the database's clock, so every process (and a test that moves a member's cooling-off back)
 * agrees on "now". Call it inside the transaction that holds the request's row lock.
 */
export async function countVotes(
  db: Db | Knex.Transaction,
  request: { id: number; proposed_by_member: number | null; proposed_by_key: number | null },
): Promise<QuorumCount> {
  const rows = (await db('withdrawal_approvals as a')
    .join('members as m', 'm.id', 'a.member_id')
    .where('a.request_id', request.id)
    .orderBy('a.id')
    .select(
      'a.member_id',
      'a.decision',
      'a.created_at',
      'm.role',
      'm.removed_at',
      'm.approver_counts_from',
      db.raw('(m.approver_counts_from > now() and m.approver_confirmed_at is null) as cooling'),
    )) as VoteRow[];
  const keyCreator =
    request.proposed_by_key === null
      ? null
      : (((await db('api_keys').where({ id: request.proposed_by_key }).first('created_by')) as { created_by: number | null } | undefined)
          ?.created_by ?? null);
  const votes = rows.map((r): CountedVote => {
    const reason = discount(r, request.proposed_by_member, keyCreator);
    return {
      memberId: r.member_id,
      decision: r.decision,
      at: r.created_at,
      counts: r.decision === 'reject' || reason === undefined,
      ...(r.decision === 'approve' && reason ? { reason } : {}),
      ...(r.decision === 'approve' && reason === 'cooling_off' && r.approver_counts_from
        ? { countsFrom: r.approver_counts_from.toISOString() }
        : {}),
    };
  });
  return { approvals: votes.filter((v) => v.decision === 'approve' && v.counts).length, votes };
}

function discount(r: VoteRow, proposer: number | null, keyCreator: number | null): DiscountReason | undefined {
  if (r.removed_at !== null) return 'removed';
  if (!isRole(r.role) || !ROLE_ACTIONS[r.role].has('withdrawals:create')) return 'role';
  if (r.member_id === proposer || r.member_id === keyCreator) return 'proposer';
  if (r.cooling) return 'cooling_off';
  return undefined;
}

/** In words, for messages and the audit. */
export const DISCOUNT_WORDS: Record<DiscountReason, string> = {
  removed: 'the member was removed',
  role: "the member's role may no longer approve",
  proposer: 'the member proposed the request (or created the API key that did)',
  cooling_off: "the member's cooling-off as a new approver has not ended and no other owner confirmed them",
};

/**
 * Prepare's and sign's check, under the request's row lock (shared: a removal's recount waits for
 * it, then finds the withdrawal and cancels it): still approved, not reopened since the caller
 * read it (prepare), and its counted approvals still meet its quorum. Taken before the
 * withdrawal's row lock, the order the recount takes them in.
 */
export async function requireQuorum(trx: Knex.Transaction, requestId: number, reopened?: number): Promise<void> {
  const req = (await trx('withdrawal_requests').where({ id: requestId }).forShare().first()) as
    | {
        id: number;
        status: string;
        reopened: number;
        required_approvals: number;
        proposed_by_member: number | null;
        proposed_by_key: number | null;
      }
    | undefined;
  if (req?.status !== 'approved' || (reopened !== undefined && req.reopened !== reopened))
    throw new BaseError(
      'conflict',
      `withdrawal request ${requestId} is no longer approved (a voter stopped counting); it needs approvals again`,
    );
  const { approvals } = await countVotes(trx, req);
  if (approvals < req.required_approvals)
    throw new BaseError(
      'policy_approvals_pending',
      `withdrawal request ${requestId} has ${approvals} of ${req.required_approvals} approvals that count now; it needs approvals again`,
    );
}
