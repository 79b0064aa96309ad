import type { Follower } from '@walletd/indexer';
import { addPolicy } from '@walletd/server';
import {
  type Anvil,
  type ConsoleServer,
  type Seeded,
  type TestApp,
  type TestDatabase,
  call,
  expectSchema,
  onboardMember,
  type FundedTreasury,
  startFundedTreasury,
} from '@walletd/test-harness';

/**
 * Sending what was approved (issue 42 §6), through the console's HTTP API on anvil: a quorum that
 * waits for a person's Send (owners and admins, with a step-up), one that sends at once (an
 * `approval_above` policy's `onApproval: "send"`), both followed to confirmed; and an approval
 * reached while funds were short, which says so and expires (database time) instead of paying later.
 */
describe('approved withdrawal requests are sent', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  let app: TestApp;
  let con: ConsoleServer;
  let s: Seeded;
  let follower: Follower;
  let walletId: number;
  const recipient = '0x000000000000000000000000000000000000dEaD';
  const api = (method: string, path: string, body?: unknown, key = s.rootKey) => call(app.url, method, `/v1${path}`, { key, body });

  let funded: FundedTreasury | undefined;
  beforeAll(async () => {
    funded = await startFundedTreasury();
    ({ t, anvil, app, con, follower, s, walletId } = funded);
  });
  afterAll(async () => {
    await funded?.close();
  });

  type Member = Awaited<ReturnType<typeof onboardMember>>;
  const member = (email: string, role: string) => onboardMember(con, t.db, { companyId: s.companyId, email, role });
  const propose = async (amount: string, key = s.rootKey) => {
    const r = await api('POST', '/withdrawal-requests', { walletId, asset: 'ETH', toAddress: recipient, amount }, key);
    expect(r.status).toBe(201);
    return String(r.body.id);
  };
  const consoleCall = (m: Member, method: string, path: string) => m.b.call(method, `/console/api${path}`);
  const stepUp = (m: Member) => m.b.call('POST', '/console/api/step-up', { body: { code: m.code() } });
  const confirmOnChain = async (m: Member, withdrawalId: number) => {
    await anvil.mine(1);
    await follower.tick();
    return (await consoleCall(m, 'GET', `/withdrawals/${withdrawalId}`)).body;
  };

  let alice: Member;
  let bob: Member;
  let dev: Member;
  beforeAll(async () => {
    alice = await member('alice@acme.test', 'admin');
    bob = await member('bob@acme.test', 'admin');
    dev = await member('dev@acme.test', 'developer');
  });

  it('wait_for_send (the default): the quorum prepares; an admin with a fresh step-up sends; the request page follows it to confirmed', async () => {
    const id = await propose('0.5');
    const approved = await consoleCall(alice, 'POST', `/requests/${id}/approve`);
    expect(approved.body).toMatchObject({ prepared: true, request: { status: 'approved', onApproval: 'wait_for_send' } });
    expect(approved.body.sent).toBeUndefined();
    const withdrawalId = approved.body.withdrawal.id as number;
    expect(approved.body.withdrawal.status).toBe('prepared');
    expectSchema('WithdrawalRequest', (await api('GET', `/withdrawal-requests/${id}`)).body);

    // A developer may read it but not send it; a stale step-up is asked again; nothing moved meanwhile.
    expect(await consoleCall(dev, 'POST', `/requests/${id}/send`)).toMatchObject({ status: 403, body: { code: 'role_insufficient' } });
    con.clock.now += 6 * 60_000;
    expect(await consoleCall(bob, 'POST', `/requests/${id}/send`)).toMatchObject({ status: 403, body: { code: 'step_up_required' } });
    expect((await api('GET', `/withdrawals/${withdrawalId}`)).body.status).toBe('prepared');

    expect((await stepUp(bob)).status).toBe(200);
    const sent = await consoleCall(bob, 'POST', `/requests/${id}/send`);
    expect(sent.status).toBe(200);
    expect(sent.body.withdrawal).toMatchObject({ id: withdrawalId, status: 'broadcast', amount: '0.5', toAddress: recipient });
    // A second Send answers the withdrawal as it is: one transaction.
    expect((await consoleCall(bob, 'POST', `/requests/${id}/send`)).body.withdrawal).toMatchObject({
      id: withdrawalId,
      status: 'broadcast',
    });
    expect(await confirmOnChain(bob, withdrawalId)).toMatchObject({ status: 'confirmed', requestId: Number(id) });
    const audited = await t.db('audit_log').where({ action: 'withdrawal_request.sent', target_id: id });
    expect(audited.map((a) => [a.actor_type, a.actor_id, a.details.withdrawalId])).toEqual([
      ['member', String(bob.memberId), withdrawalId],
    ]);
  });

  it('send (a policy says so): the deciding vote signs and broadcasts at once, through to confirmed', async () => {
    await addPolicy(t.db, {
      companyId: s.companyId,
      name: 'send at once above 0.7 ETH',
      kind: 'approval_above',
      walletIds: null,
      assetKey: 'ethereum:devnet:eth',
      threshold: 7n * 10n ** 17n,
      approvals: 1,
      onApproval: 'send',
    });
    const id = await propose('0.75');
    expect((await stepUp(alice)).status).toBe(200);
    const approved = await consoleCall(alice, 'POST', `/requests/${id}/approve`);
    expect(approved.body).toMatchObject({
      prepared: true,
      sent: true,
      request: { status: 'approved', onApproval: 'send', lastError: null },
    });
    expect(approved.body.withdrawal).toMatchObject({ status: 'broadcast', amount: '0.75' });
    expect(await confirmOnChain(alice, approved.body.withdrawal.id)).toMatchObject({ status: 'confirmed' });
    const audited = await t.db('audit_log').where({ action: 'withdrawal_request.sent', target_id: id });
    expect(audited.map((a) => [a.actor_type, a.details.onApproval])).toEqual([['system', 'send']]);
  });

  it('approved while funds are short: the reason and the expiry are shown, Send refuses, and past the expiry (database time) it is expired, never paid', async () => {
    const id = await propose('40');
    expect((await stepUp(alice)).status).toBe(200);
    const approved = await consoleCall(alice, 'POST', `/requests/${id}/approve`);
    expect(approved.body).toMatchObject({ prepared: false, request: { status: 'approved', withdrawalId: null } });
    expect(approved.body.reason).toMatch(/holds too little|available/);
    const shown = (await consoleCall(alice, 'GET', `/requests/${id}`)).body;
    expect(shown.lastError).toMatch(/holds too little|available/);
    // approvals.fundsShortExpiryMs: 72 h by default, counted from the first refusal.
    expect(Date.parse(shown.expiresAt) - Date.parse(shown.fundsShortSince)).toBe(72 * 3_600_000);
    expect(await consoleCall(alice, 'POST', `/requests/${id}/send`)).toMatchObject({ status: 422, body: { code: 'insufficient_funds' } });
    // A second refusal does not move the expiry.
    expect((await consoleCall(alice, 'GET', `/requests/${id}`)).body.expiresAt).toBe(shown.expiresAt);

    // Three days pass in the database's own time: the request expires instead of paying when money arrives.
    await t
      .db('withdrawal_requests')
      .where({ id })
      .update({ expires_at: t.db.raw("now() - interval '1 second'") });
    const source = (await api('POST', `/wallets/${walletId}/addresses`)).body.address;
    await anvil.send(source, 50n * 10n ** 18n);
    await follower.tick();
    expect(await consoleCall(alice, 'POST', `/requests/${id}/send`)).toMatchObject({ status: 409, body: { code: 'request_expired' } });
    expect(await consoleCall(alice, 'POST', `/requests/${id}/prepare`)).toMatchObject({ status: 409, body: { code: 'request_expired' } });
    expect((await consoleCall(alice, 'GET', `/requests/${id}`)).body).toMatchObject({ status: 'expired', withdrawalId: null });
    expect((await consoleCall(alice, 'GET', '/requests?status=expired')).body.data.map((r: { id: number }) => r.id)).toEqual([Number(id)]);
    expect(await t.db('withdrawals').where({ request_id: Number(id) })).toEqual([]);
    const audited = await t.db('audit_log').where({ action: 'withdrawal_request.expired', target_id: id });
    expect(audited.map((a) => [a.actor_type, a.details.reason])).toEqual([['system', 'funds_short']]);
  });

  it('a company default set by an owner (step-up, audited) decides where no policy does', async () => {
    const owner = await member(`owner-${s.companyId}@example.com`, 'owner');
    const put = (m: Member, onApproval: unknown) => m.b.call('PUT', '/console/api/approval-settings', { body: { onApproval } });
    expect((await alice.b.call('GET', '/console/api/approval-settings')).body).toEqual({
      onApproval: 'wait_for_send',
      companyDefault: null,
      deploymentDefault: 'wait_for_send',
    });
    expect(await put(alice, 'send')).toMatchObject({ status: 403, body: { code: 'role_insufficient' } });
    expect(await put(owner, 'later')).toMatchObject({ status: 400, body: { code: 'validation_failed' } });
    expect((await put(owner, 'send')).body).toMatchObject({ onApproval: 'send', companyDefault: 'send' });

    // 0.2 ETH: below every approval_above threshold, so the company's default decides.
    const id = await propose('0.2');
    expect((await stepUp(alice)).status).toBe(200);
    const approved = await consoleCall(alice, 'POST', `/requests/${id}/approve`);
    expect(approved.body).toMatchObject({ sent: true, request: { onApproval: 'send' }, withdrawal: { status: 'broadcast' } });
    expect(await confirmOnChain(alice, approved.body.withdrawal.id)).toMatchObject({ status: 'confirmed' });
    const audited = await t.db('audit_log').where({ action: 'company.on_approval_changed' });
    expect(audited.map((a) => [a.actor_id, a.details.before, a.details.after])).toEqual([[String(owner.memberId), null, 'send']]);
  });
});
