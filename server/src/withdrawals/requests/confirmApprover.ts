import type { Common } from '../../platform/context';
import { prepareOrSay } from './requests';
import type { RequestRow } from './requestView';
import { settleRequest } from './settleRequest';

/**
 * Another owner vouches for a new approver (the route checked who and the step-up): their
 * cooling-off ends now, and each pending request they approved is settled again at once, since
 * their vote may be the one that completes its quorum. Requests approved so are then prepared as
 * at a vote. Answers the requests that reached their quorum.
 */
export async function confirmApprover(common: Common, memberId: number, by: number): Promise<{ settled: number[] }> {
  const { db } = common;
  const approved = await db.transaction(async (trx) => {
    await trx('members').where({ id: memberId }).update({ approver_confirmed_at: trx.fn.now(), approver_confirmed_by: by });
    const ids = (await trx('withdrawal_requests as r')
      .join('withdrawal_approvals as a', 'a.request_id', 'r.id')
      .where({ 'a.member_id': memberId, 'a.decision': 'approve', 'r.status': 'pending' })
      .orderBy('r.id')
      .pluck('r.id')) as number[];
    const out: number[] = [];
    for (const id of ids) {
      const req = (await trx('withdrawal_requests').where({ id }).forUpdate().first()) as RequestRow;
      if (req.status !== 'pending') continue;
      if ((await settleRequest(trx, common.plugins, req)).request.status === 'approved') out.push(id);
    }
    return out;
  });
  for (const id of approved) await prepareOrSay(common, id, `request ${id} approved once its approver was confirmed`);
  return { settled: approved };
}
