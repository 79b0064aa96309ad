import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ChainSettings, MasterKey } from '@walletd/core';
import { createDetectPool, type DetectPool, type Follower } from '@walletd/indexer';
import { addPolicy } from '@walletd/server';
import {
  type Anvil,
  Browser,
  type ConsoleServer,
  onboardMember,
  startConsole,
  type Seeded,
  type TestApp,
  type TestDatabase,
  call,
  createTestDatabase,
  keyFor,
  runWalletdAsync,
  seedCompany,
  startAnvil,
  startTestApp,
  expectSchema,
  testFollower,
} from '@walletd/test-harness';

/**
 * Human approval as people run it: a key proposes over the API, members sign in to the console
 * (password and TOTP) and vote in its inbox with a fresh step-up, the quorum prepares the
 * withdrawal, and the API sends it. The admin CLI no longer votes.
 */
describe('withdrawal requests approved in the console', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  let pool: DetectPool;
  let app: TestApp;
  let con: ConsoleServer;
  let s: Seeded;
  let follower: Follower;
  let walletId: number;
  let env: Record<string, string>;
  let configFile: string;
  const hexKey = randomBytes(32).toString('hex');
  const recipient = '0x000000000000000000000000000000000000dEaD';

  const api = (method: string, path: string, body?: unknown, key = s.rootKey) => call(app.url, method, `/v1${path}`, { key, body });
  const cli = (...args: string[]) => runWalletdAsync(['-c', configFile, 'admin', ...args], env);

  beforeAll(async () => {
    t = await createTestDatabase();
    anvil = await startAnvil();
    pool = createDetectPool(1);
    const settings: ChainSettings = { chain: 'ethereum', network: 'devnet', rpcUrl: anvil.url, confirmations: 1, startBlock: 0 };
    const dir = mkdtempSync(join(tmpdir(), 'walletd-approvals-'));
    configFile = join(dir, 'walletd.json');
    writeFileSync(configFile, JSON.stringify({ chains: [settings] }));
    env = { DATABASE_URL: t.url, WALLETD_MASTER_KEY: hexKey, WALLETD_DEVNET: '0', WALLETD_BOOTSTRAP: '0', WALLETD_DATA_DIR: dir };
    app = await startTestApp(t.db, { chains: [settings] }, new MasterKey(Buffer.from(hexKey, 'hex')));
    con = await startConsole(t.db, { chains: [settings] }, new MasterKey(Buffer.from(hexKey, 'hex')));
    follower = testFollower(t.db, pool, settings);
    s = await seedCompany(t.db);
    walletId = (await api('POST', '/wallets', { name: 'treasury', chain: 'ethereum', network: 'devnet' })).body.id;
    const source = (await api('POST', `/wallets/${walletId}/addresses`)).body.address;
    await anvil.send(source, 5n * 10n ** 18n);
    await follower.tick();
  });
  afterAll(async () => {
    await con.close();
    await app.close();
    await pool.close();
    await anvil.stop();
    await t.drop();
  });

  const member = (email: string, role: string, companyId = s.companyId) => onboardMember(con, t.db, { companyId, email, role });
  type Member = Awaited<ReturnType<typeof member>>;
  const vote = (m: Member, id: string, how: 'approve' | 'reject' = 'approve') => m.b.call('POST', `/console/api/requests/${id}/${how}`);
  const stepUp = (m: Member, code = m.code()) => m.b.call('POST', '/console/api/step-up', { body: { code } });

  it('needs two members signed in with step-up, refuses the proposer, other roles, other companies, stale step-ups and the CLI, then prepares and sends', async () => {
    // Written with the service the console's Policies page uses (the CLI no longer adds policies).
    const policy = await addPolicy(t.db, {
      companyId: s.companyId,
      name: 'two sign-offs above 1 ETH',
      kind: 'approval_above',
      walletIds: null,
      assetKey: 'ethereum:devnet:eth',
      threshold: 10n ** 18n,
      approvals: 2,
    });
    expect(policy).toMatchObject({ kind: 'approval_above', params: { threshold: '1000000000000000000', approvals: 2 }, enabled: true });

    const direct = await api('POST', `/wallets/${walletId}/withdrawals`, {
      asset: 'ETH',
      toAddress: recipient,
      amount: '2',
      idempotencyKey: 'direct-2',
    });
    expect(direct.status).toBe(403);
    expect(direct.body).toMatchObject({ code: 'policy_approval_required', policyIds: String(policy.id) });

    const alice = await member('alice@acme.test', 'admin');
    const bob = await member('bob@acme.test', 'admin');
    const owner = await member(`owner-${s.companyId}@example.com`, 'owner');
    const dev = await member('dev@acme.test', 'developer');
    const viewer = await member('viewer@acme.test', 'viewer');
    expect(owner.memberId).toBe(s.ownerId);
    const proposer = await keyFor(t.db, s.companyId, {
      actions: ['withdrawal_requests:create', 'withdrawals:read'],
      createdBy: alice.memberId,
    });
    const proposed = await api(
      'POST',
      '/withdrawal-requests',
      { walletId, asset: 'ETH', toAddress: recipient, amount: '2', note: 'supplier invoice 42', idempotencyKey: 'invoice-42' },
      proposer.key,
    );
    expect(proposed.status).toBe(201);
    expect(proposed.body).toMatchObject({ status: 'pending', requiredApprovals: 2, proposedByMember: alice.memberId });
    const id = String(proposed.body.id);

    // The CLI no longer records a vote for whoever it is told.
    const viaCli = await cli('request', 'approve', id, '--member', String(bob.memberId));
    expect(viaCli.status).toBe(2);
    expect(viaCli.stderr).toMatch(/removed.*console/);
    expect(await t.db('withdrawal_approvals').where({ request_id: proposed.body.id })).toEqual([]);

    const inbox = await bob.b.call('GET', '/console/api/requests?status=pending');
    expect(inbox.status).toBe(200);
    expect(inbox.body.data).toEqual([
      expect.objectContaining({
        id: proposed.body.id,
        amount: '2',
        toAddress: recipient,
        note: 'supplier invoice 42',
        policyIds: String(policy.id),
        requiredApprovals: 2,
        votes: [],
        proposedByEmail: 'alice@acme.test',
      }),
    ]);

    // Each of these sessions is fresh from a sign-in with a TOTP code (a step-up in itself).
    const self = await vote(alice, id);
    expect([self.status, self.body.code]).toEqual([403, 'forbidden']);
    for (const m of [dev, viewer]) {
      expect(await vote(m, id)).toMatchObject({ status: 403, body: { code: 'role_insufficient' } });
      expect((await m.b.call('GET', `/console/api/requests/${id}`)).status).toBe(200);
    }
    const withKey = await call(con.url, 'POST', `/console/api/requests/${id}/approve`, { key: s.rootKey });
    expect([withKey.status, withKey.body.code]).toEqual([403, 'dashboard_only']);
    const keyAndCookie = await bob.b.call('GET', '/console/api/requests', { headers: { authorization: `Bearer ${s.rootKey}` } });
    expect(keyAndCookie.status).toBe(403);

    // An admin of another company: the request does not exist for them.
    const other = await seedCompany(t.db);
    const mallory = await member('mallory@other.test', 'admin', other.companyId);
    expect((await mallory.b.call('GET', `/console/api/requests/${id}`)).status).toBe(404);
    expect(await vote(mallory, id)).toMatchObject({ status: 404, body: { code: 'not_found' } });
    expect((await mallory.b.call('GET', '/console/api/requests')).body.data).toEqual([]);

    // A step-up older than five minutes is not enough; a replayed code does not renew it.
    con.clock.now += 6 * 60_000;
    expect(await vote(bob, id)).toMatchObject({ status: 403, body: { code: 'step_up_required' } });
    const code = bob.code();
    expect((await stepUp(bob, code)).status).toBe(200);
    con.clock.now += 6 * 60_000;
    expect((await stepUp(bob, code)).status).toBe(401);
    expect(await vote(bob, id)).toMatchObject({ status: 403, body: { code: 'step_up_required' } });
    expect((await stepUp(bob)).status).toBe(200);

    const first = await vote(bob, id);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      code: 'policy_approvals_pending',
      prepared: false,
      withdrawal: null,
      request: { status: 'pending', votes: [{ memberId: bob.memberId, email: 'bob@acme.test', decision: 'approve' }] },
    });
    expect(first.body.message).toMatch(/1 of 2 approvals/);
    expect(await vote(bob, id)).toMatchObject({ status: 409, body: { code: 'conflict' } });

    expect((await stepUp(owner)).status).toBe(200);
    const quorum = await vote(owner, id);
    expect(quorum.status).toBe(200);
    expect(quorum.body.prepared).toBe(true);
    expect(quorum.body.request).toMatchObject({ status: 'approved', votes: [{ memberId: bob.memberId }, { memberId: s.ownerId }] });
    expect(quorum.body.withdrawal).toMatchObject({ status: 'prepared', amount: '2', toAddress: recipient, requestId: proposed.body.id });
    const withdrawalId = quorum.body.withdrawal.id as number;
    expect((await api('GET', `/withdrawal-requests/${id}`, undefined, proposer.key)).body).toMatchObject({
      status: 'approved',
      withdrawalId,
    });

    // Each vote keeps who, when, from where and which session; the audit log has it too.
    const votes = await t.db('withdrawal_approvals').where({ request_id: proposed.body.id }).orderBy('id');
    expect(votes).toEqual([
      expect.objectContaining({ member_id: bob.memberId, ip: expect.stringContaining('127.0.0.1'), session_id: expect.any(Number) }),
      expect.objectContaining({ member_id: s.ownerId, ip: expect.stringContaining('127.0.0.1'), session_id: expect.any(Number) }),
    ]);
    expect(votes[0].session_id).not.toBe(votes[1].session_id);
    const audited = await t.db('audit_log').where({ company_id: s.companyId, action: 'withdrawal_request.approved' }).orderBy('id');
    expect(audited.map((a) => [a.actor_id, a.target_id, a.ip, a.details?.sessionId])).toEqual([
      [String(bob.memberId), id, expect.stringContaining('127.0.0.1'), votes[0].session_id],
      [String(s.ownerId), id, expect.stringContaining('127.0.0.1'), votes[1].session_id],
    ]);

    const sent = await api('POST', `/withdrawals/${withdrawalId}/broadcast`);
    expect(sent.body).toMatchObject({ status: 'broadcast', amount: '2', toAddress: recipient });
    await anvil.mine(1);
    await follower.tick();
    const view = (await api('GET', `/withdrawals/${withdrawalId}`)).body;
    expectSchema('Withdrawal', view);
    expect(view.status).toBe('confirmed');
    expect(view.history[0]).toMatchObject({ status: 'prepared', details: { requestId: proposed.body.id, approvals: 2 } });
  });

  it('rejects a request on one member veto; later votes are refused', async () => {
    const carol = await member('carol@acme.test', 'admin');
    const proposed = await api('POST', '/withdrawal-requests', { walletId, asset: 'ETH', toAddress: recipient, amount: '0.5' });
    expect(proposed.body.requiredApprovals).toBe(1);
    const veto = await vote(carol, String(proposed.body.id), 'reject');
    expect(veto.status).toBe(200);
    expect(veto.body).toMatchObject({
      prepared: false,
      request: { status: 'rejected', votes: [{ memberId: carol.memberId, decision: 'reject' }] },
    });
    const late = await cli('request', 'reject', String(proposed.body.id), '--member', String(s.ownerId));
    expect(late.status).toBe(2);
    expect(await t.db('withdrawals').where({ request_id: proposed.body.id }).count({ n: '*' })).toEqual([{ n: 0 }]);
  });

  it('audits sign-ins, refused ones (same answer for a wrong password and an unknown email), MFA enrollment and sign-outs', async () => {
    const dave = await member('dave@acme.test', 'admin');
    const wrong = await new Browser(con.url).call('POST', '/console/api/session', {
      body: { email: 'dave@acme.test', password: 'not the password' },
    });
    const unknown = await new Browser(con.url).call('POST', '/console/api/session', {
      body: { email: 'nobody@acme.test', password: 'not the password' },
    });
    expect([wrong.status, wrong.body]).toEqual([unknown.status, unknown.body]);
    const noCode = await new Browser(con.url).call('POST', '/console/api/session', {
      body: { email: 'dave@acme.test', password: dave.password },
    });
    expect(noCode.body.code).toBe('mfa_required');
    expect((await dave.b.call('DELETE', '/console/api/session')).status).toBe(204);

    const rows = await t
      .db('audit_log')
      .where({ actor_id: String(dave.memberId) })
      .orderBy('id');
    expect(rows.map((r) => [r.action, r.actor_type, r.company_id])).toEqual([
      ['member.password_set', 'member', s.companyId],
      ['member.signed_in', 'member', s.companyId],
      ['member.mfa_enrolled', 'member', s.companyId],
      ['member.signed_out', 'member', s.companyId],
      ['member.signed_in', 'member', s.companyId],
      ['member.signed_out', 'member', s.companyId],
    ]);
    expect(rows.every((r) => String(r.ip).includes('127.0.0.1'))).toBe(true);
    const failed = await t.db('audit_log').where({ action: 'member.sign_in_failed' }).orderBy('id');
    expect(failed.map((r) => [r.company_id, r.actor_type, r.details])).toEqual([
      [s.companyId, 'system', { email: 'dave@acme.test', reason: 'bad_credentials' }],
      [null, 'system', { email: 'nobody@acme.test', reason: 'bad_credentials' }],
      // The right password without its code is the sign-in page's first step, not a failure.
    ]);
  });
});
