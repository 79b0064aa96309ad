import { expectSchema } from '@walletd/test-harness';
import { type QuorumWorld, RECIPIENT, startQuorumWorld } from './quorumFixture';

/**
 * Issue 42 §2: a vote counts only while its voter is an active member whose role may approve.
 * The owner removes or demotes a voter through the console, as a person does.
 */
describe('the quorum counts only members who are still approvers', () => {
  let w: QuorumWorld;
  let owner: Awaited<ReturnType<QuorumWorld['member']>>;
  beforeAll(async () => {
    w = await startQuorumWorld();
    owner = await w.member(`owner-${w.s.companyId}@example.com`, 'owner');
  });
  afterAll(async () => w.close());

  it('a removed voter no longer counts: A approves, A is removed, B approves, the request still waits', async () => {
    const a = await w.member('a1@acme.test', 'admin');
    const b = await w.member('b1@acme.test', 'admin');
    const c = await w.member('c1@acme.test', 'admin');
    const id = await w.propose();
    expect((await w.vote(a, id)).body.request).toMatchObject({ status: 'pending' });
    expect((await owner.b.call('DELETE', `/console/api/members/${a.memberId}`)).status).toBe(200);
    const second = await w.vote(b, id);
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ code: 'policy_approvals_pending', prepared: false, request: { status: 'pending' } });
    expect(second.body.message).toMatch(/1 of 2 approvals/);
    expect(second.body.request.votes).toEqual([
      expect.objectContaining({ memberId: a.memberId, counts: false, reason: 'removed' }),
      expect.objectContaining({ memberId: b.memberId, counts: true }),
    ]);
    const view = (await w.request(id)).body;
    expectSchema('WithdrawalRequest', view);
    expect(view).toMatchObject({ status: 'pending', countedApprovals: 1, withdrawalId: null });
    expect(view.approvals[0]).toMatchObject({ memberId: a.memberId, counts: false, reason: 'removed' });
    const audited = await w.t.db('audit_log').where({ action: 'withdrawal_request.vote_discounted', target_id: id });
    expect(audited.map((r) => r.details)).toEqual([expect.objectContaining({ memberId: a.memberId, reason: 'removed', approvals: 0 })]);
    // A third person completes it.
    const third = await w.vote(c, id);
    expect(third.body).toMatchObject({ prepared: true, request: { status: 'approved', countedApprovals: 2 } });
  });

  it('a voter demoted to viewer no longer counts', async () => {
    const a = await w.member('a2@acme.test', 'admin');
    const b = await w.member('b2@acme.test', 'admin');
    const id = await w.propose();
    await w.vote(a, id);
    expect((await owner.b.call('PATCH', `/console/api/members/${a.memberId}`, { body: { role: 'viewer' } })).status).toBe(200);
    const second = await w.vote(b, id);
    expect(second.body).toMatchObject({ code: 'policy_approvals_pending', request: { status: 'pending', countedApprovals: 1 } });
    expect(second.body.request.votes[0]).toMatchObject({ memberId: a.memberId, counts: false, reason: 'role' });
  });

  it('an approved, unsent request goes back to pending when a voter is removed: its withdrawal is cancelled, then new approvals send it', async () => {
    const a = await w.member('a3@acme.test', 'admin');
    const b = await w.member('b3@acme.test', 'admin');
    const c = await w.member('c3@acme.test', 'admin');
    const id = await w.propose();
    await w.vote(a, id);
    const quorum = await w.vote(b, id);
    expect(quorum.body).toMatchObject({ prepared: true, request: { status: 'approved' }, withdrawal: { status: 'prepared' } });
    const first = quorum.body.withdrawal.id as number;

    expect((await owner.b.call('DELETE', `/console/api/members/${a.memberId}`)).status).toBe(200);
    const reopened = (await w.request(id)).body;
    expect(reopened).toMatchObject({ status: 'pending', countedApprovals: 1, withdrawalId: null, decidedAt: null });
    expect(reopened.lastError).toMatch(/back to pending: the member was removed/);
    expect((await w.api('GET', `/withdrawals/${first}`)).body).toMatchObject({ status: 'cancelled' });
    const audit = await w.t.db('audit_log').where({ action: 'withdrawal_request.reopened', target_id: id }).first();
    expect(audit.details).toMatchObject({
      memberId: a.memberId,
      reason: 'removed',
      approvals: 1,
      required: 2,
      cancelledWithdrawalIds: [first],
    });
    // The cancelled withdrawal can no longer be signed or sent.
    expect((await w.api('POST', `/withdrawals/${first}/broadcast`, {})).status).toBe(409);

    const again = await w.vote(c, id);
    expect(again.body).toMatchObject({ prepared: true, request: { status: 'approved', countedApprovals: 2 } });
    const second = again.body.withdrawal.id as number;
    expect(second).not.toBe(first);
    const sent = await w.api('POST', `/withdrawals/${second}/broadcast`, {});
    expect(sent.body).toMatchObject({ status: 'broadcast', amount: '0.2', toAddress: RECIPIENT });
    await w.anvil.mine(1);
    await w.follower.tick();
    expect((await w.api('GET', `/withdrawals/${second}`)).body.status).toBe('confirmed');
  });

  it('signing counts the votes again: a voter gone by any path stops the send', async () => {
    const a = await w.member('a4@acme.test', 'admin');
    const b = await w.member('b4@acme.test', 'admin');
    const id = await w.propose();
    await w.vote(a, id);
    const quorum = await w.vote(b, id);
    const withdrawalId = quorum.body.withdrawal.id as number;
    // Removed behind the services' back (no recount ran): only the check at signing stands in the way.
    await w.t.db('members').where({ id: a.memberId }).update({ removed_at: w.t.db.fn.now() });
    const sent = await w.api('POST', `/withdrawals/${withdrawalId}/broadcast`, {});
    expect([sent.status, sent.body.code]).toEqual([403, 'policy_approvals_pending']);
    expect(sent.body.message).toMatch(/1 of 2 approvals that count now/);
    expect((await w.api('GET', `/withdrawals/${withdrawalId}`)).body).toMatchObject({ status: 'prepared', txHash: null });
  });
});
