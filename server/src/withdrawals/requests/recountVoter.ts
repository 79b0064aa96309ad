import { type WithdrawalRow, moveWithdrawal } from '@walletd/core';
import type { Knex } from 'knex';
import { audit } from '../../company/audit';
import { DISCOUNT_WORDS, countVotes } from './countVotes';
import type { RequestRow } from './requestView';

/** Whoever sends the withdrawal next must not find a transaction the people no longer stand behind. */
const UNSENT = new Set(['prepared', 'cancelled']);

/**
 * A member stopped counting as an approver (removed, or demoted to a role that may not approve):
 * in the transaction that changed them, each request they approved that is still pending or
 * approved but unsent is counted again (`countVotes`). A pending one stays pending (its count
 * simply drops); an approved one whose count is now below its quorum goes back to pending, its
 * prepared withdrawal cancelled (which releases its reservation). Lock order: the request's row,
 * then the withdrawal's, as prepare (request, then insert) and sign (the withdrawal only) take
 * them, so a sign that already committed wins and is audited as too late to stop.
 */
export async function recountVoterRequests(trx: Knex.Transaction, memberId: number, why: 'removed' | 'role'): Promise<void> {
  const ids = (await trx('withdrawal_requests as r')
    .join('withdrawal_approvals as a', 'a.request_id', 'r.id')
    .where({ 'a.member_id': memberId, 'a.decision': 'approve' })
    .whereIn('r.status', ['pending', 'approved'])
    .orderBy('r.id')
    .pluck('r.id')) as number[];
  for (const id of ids) {
    const req = (await trx('withdrawal_requests').where({ id }).forUpdate().first()) as RequestRow;
    if (req.status !== 'pending' && req.status !== 'approved') continue;
    const { approvals } = await countVotes(trx, req);
    const base = { memberId, reason: why, because: DISCOUNT_WORDS[why], approvals, required: req.required_approvals };
    const note = (action: string, details: Record<string, unknown>) =>
      audit(trx, { companyId: req.company_id, actorType: 'system', action, targetType: 'withdrawal_request', targetId: id, details });
    if (req.status === 'pending' || approvals >= req.required_approvals) {
      await note('withdrawal_request.vote_discounted', base);
      continue;
    }
    // By request_id, not withdrawal_id: prepare records the id on the request only after its commit.
    const made = (await trx('withdrawals').where({ request_id: id }).whereNot({ status: 'cancelled' }).forUpdate()) as WithdrawalRow[];
    const sent = made.find((w) => !UNSENT.has(w.status));
    if (sent) {
      await note('withdrawal_request.quorum_lost_too_late', { ...base, withdrawalId: sent.id, withdrawalStatus: sent.status });
      continue;
    }
    for (const w of made) await moveWithdrawal(trx, w, 'cancelled', { reason: 'quorum_lost' }, { reason: 'quorum_lost', memberId });
    await trx('withdrawal_requests')
      .where({ id })
      .update({
        status: 'pending',
        withdrawal_id: null,
        decided_at: null,
        reopened: trx.raw('reopened + 1'),
        last_error: `back to pending: ${DISCOUNT_WORDS[why]} (${approvals} of ${req.required_approvals} approvals count)`,
        updated_at: trx.fn.now(),
      });
    await note('withdrawal_request.reopened', { ...base, cancelledWithdrawalIds: made.map((w) => w.id) });
  }
}

/** The prepared withdrawal's idempotency key: a reopened request's next approval makes a new one. */
export const requestWithdrawalKey = (req: Pick<RequestRow, 'id'> & { reopened?: number }): string =>
  req.reopened ? `request:${req.id}:${req.reopened}` : `request:${req.id}`;
