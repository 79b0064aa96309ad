import type { PluginRegistry } from '@walletd/core';
import type { Knex } from 'knex';
import { decidePolicies } from '../policies/policies';
import { DISCOUNT_WORDS, countVotes } from './countVotes';
import { type RequestRow, type VoteOutcome, toIntent, toRequestView } from './requestView';

/**
 * The quorum decision of a pending request, under its row lock (the caller holds it): the
 * approvals that count now (`countVotes`), the policies checked again with them (a deny added
 * since rejects it, a tightened approval policy raises the quorum, which never drops), then
 * approved when the count meets it. Called after a vote and when an owner confirms a new
 * approver; the caller prepares an approved request after its commit (`prepareOrSay`).
 * `voter`: the member whose vote asked, told when their own approval does not count.
 */
export async function settleRequest(trx: Knex.Transaction, plugins: PluginRegistry, req: RequestRow, voter?: number): Promise<VoteOutcome> {
  const close = async (status: 'approved' | 'rejected', lastError: string | null = null) =>
    (await trx('withdrawal_requests')
      .where({ id: req.id })
      .update({ status, last_error: lastError, decided_at: trx.fn.now(), updated_at: trx.fn.now() })
      .returning('*')) as RequestRow[];
  const { approvals, votes } = await countVotes(trx, req);
  const mine = votes.find((v) => v.memberId === voter);
  const wallet = { id: req.wallet_id, company_id: req.company_id };
  const decision = await decidePolicies(trx, plugins, wallet, toIntent(req.intent), approvals);
  if (decision.outcome === 'refuse' && decision.code === 'policy_denied') {
    const [closed] = await close('rejected', decision.message);
    return {
      request: await toRequestView(trx, closed as RequestRow),
      code: 'policy_denied',
      policyIds: decision.policyIds,
      message: decision.message,
    };
  }
  const required = Math.max(req.required_approvals, decision.outcome === 'refuse' ? (decision.requiredApprovals ?? 1) : 1);
  if (approvals < required) {
    const [updated] = (await trx('withdrawal_requests')
      .where({ id: req.id })
      .update({ required_approvals: required, updated_at: trx.fn.now() })
      .returning('*')) as RequestRow[];
    const why = mine?.reason ? ` (this approval does not count: ${DISCOUNT_WORDS[mine.reason]})` : '';
    return {
      request: await toRequestView(trx, updated as RequestRow),
      code: 'policy_approvals_pending',
      policyIds: decision.outcome === 'refuse' ? decision.policyIds : '',
      message: `${approvals} of ${required} approvals so far; waiting for the remaining sign-offs${why}`,
    };
  }
  const [closed] = await close('approved');
  return { request: await toRequestView(trx, closed as RequestRow), message: `request ${req.id} approved with ${approvals} approvals` };
}
