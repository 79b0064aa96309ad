import { expectSchema, signUpWithLink } from '@walletd/test-harness';
import { type QuorumWorld, startQuorumWorld } from './quorumFixture';

/**
 * Issue 42 §3: one person can be two approvers. A new approver invited (or promoted) in the
 * console counts only after `console.approverCoolingOffMs` (48 h by default) unless another
 * owner confirms them with a step-up; nobody counts on a request they (or their key) proposed.
 * Time is the database's: the period's end is moved back instead of sleeping.
 */
describe('a new approver counts only after a cooling-off or another owner confirming them', () => {
  let w: QuorumWorld;
  let owner: Awaited<ReturnType<QuorumWorld['member']>>;
  let admin: Awaited<ReturnType<QuorumWorld['member']>>;
  beforeAll(async () => {
    w = await startQuorumWorld();
    owner = await w.member(`owner-${w.s.companyId}@example.com`, 'owner');
    admin = await w.member('admin@acme.test', 'admin');
  });
  afterAll(async () => w.close());

  /** Invited in the console by `by` (with a step-up), then signed up through the link as the invitee does. */
  const invite = async (by: typeof owner, email: string, role = 'admin') => {
    expect((await by.b.call('POST', '/console/api/step-up', { body: { code: by.code() } })).status).toBe(200);
    const inv = await by.b.call('POST', '/console/api/members', { body: { email, role } });
    expect(inv.status).toBe(201);
    const token = String(inv.body.url).split('/console/links/')[1] as string;
    return { ...(await signUpWithLink(w.con, token, email)), memberId: inv.body.member.id as number, invited: inv.body };
  };

  it("an admin's second address invited as admin does not count until another owner confirms it", async () => {
    const twin = await invite(admin, 'admin-second@acme.test');
    expect(twin.invited.member.approverCoolingOffUntil).toEqual(expect.any(String));
    const until = Date.parse(twin.invited.member.approverCoolingOffUntil);
    expect(until - Date.now()).toBeGreaterThan(47 * 3_600_000);

    const id = await w.propose();
    expect((await w.vote(admin, id)).body.request.countedApprovals).toBe(1);
    const own = await w.vote(twin, id);
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({
      code: 'policy_approvals_pending',
      prepared: false,
      request: { status: 'pending', countedApprovals: 1 },
    });
    expect(own.body.message).toMatch(/1 of 2 approvals.*does not count: .*cooling-off/);
    expect(own.body.request.votes[1]).toMatchObject({ memberId: twin.memberId, counts: false, reason: 'cooling_off' });
    const view = (await w.request(id)).body;
    expectSchema('WithdrawalRequest', view);
    expect(view.approvals[1]).toMatchObject({
      counts: false,
      reason: 'cooling_off',
      countsFrom: twin.invited.member.approverCoolingOffUntil,
    });

    // Only another owner vouches, and only with a fresh step-up.
    const byAdmin = await admin.b.call('POST', `/console/api/members/${twin.memberId}/confirm-approver`);
    expect([byAdmin.status, byAdmin.body.code]).toEqual([403, 'role_insufficient']);
    w.con.clock.now += 10 * 60_000;
    const stale = await owner.b.call('POST', `/console/api/members/${twin.memberId}/confirm-approver`);
    expect(stale.status).toBe(403);
    expect((await owner.b.call('POST', '/console/api/step-up', { body: { code: owner.code() } })).status).toBe(200);
    const confirmed = await owner.b.call('POST', `/console/api/members/${twin.memberId}/confirm-approver`);
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toMatchObject({
      member: { approverCoolingOffUntil: null, approverConfirmedBy: owner.memberId },
      settled: [Number(id)],
    });
    // The twin's vote now counts and completes the quorum: approved and prepared.
    const after = (await w.request(id)).body;
    expect(after).toMatchObject({ status: 'approved', countedApprovals: 2, withdrawalId: expect.any(Number) });
    expect(after.approvals[1]).toMatchObject({ counts: true });
    const audit = await w.t
      .db('audit_log')
      .where({ action: 'member.approver_confirmed', target_id: String(twin.memberId) })
      .first();
    expect(audit).toMatchObject({ actor_id: String(owner.memberId) });
  });

  it('counts once the cooling-off has passed on the database clock', async () => {
    const late = await invite(owner, 'late@acme.test');
    const id = await w.propose();
    await w.vote(late, id);
    expect((await w.request(id)).body.approvals[0]).toMatchObject({ counts: false, reason: 'cooling_off' });
    // As if 48 hours went by.
    await w.t
      .db('members')
      .where({ id: late.memberId })
      .update({ approver_counts_from: w.t.db.raw("now() - interval '1 second'") });
    expect((await w.request(id)).body).toMatchObject({ countedApprovals: 1, approvals: [{ counts: true }] });
    expect((await admin.b.call('POST', '/console/api/step-up', { body: { code: admin.code() } })).status).toBe(200);
    expect((await w.vote(admin, id)).body).toMatchObject({ prepared: true, request: { status: 'approved', countedApprovals: 2 } });
  });

  it('a viewer promoted to admin cools off like a new invitee', async () => {
    const viewer = await invite(owner, 'viewer@acme.test', 'viewer');
    expect(viewer.invited.member.approverCoolingOffUntil).toBeNull();
    expect((await owner.b.call('POST', '/console/api/step-up', { body: { code: owner.code() } })).status).toBe(200);
    const promoted = await owner.b.call('PATCH', `/console/api/members/${viewer.memberId}`, { body: { role: 'admin' } });
    expect(promoted.status).toBe(200);
    expect(promoted.body.approverCoolingOffUntil).toEqual(expect.any(String));
    const id = await w.propose();
    await w.vote(viewer, id);
    expect((await w.request(id)).body.approvals[0]).toMatchObject({ counts: false, reason: 'cooling_off' });
  });

  it('a member never counts on a request they proposed, or that a key they created proposed', async () => {
    // The root key was created by the owner: the owner may not approve what it proposes.
    const id = await w.propose();
    expect((await w.request(id)).body.proposedByMember).toBe(owner.memberId);
    expect((await owner.b.call('POST', '/console/api/step-up', { body: { code: owner.code() } })).status).toBe(200);
    const self = await w.vote(owner, id);
    expect([self.status, self.body.code]).toEqual([403, 'forbidden']);
    expect((await w.request(id)).body).toMatchObject({ approvals: [], countedApprovals: 0 });
  });
});
