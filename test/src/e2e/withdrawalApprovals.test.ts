import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ChainSettings, MasterKey } from '@walletd/core';
import { createDetectPool, type DetectPool, type Follower } from '@walletd/indexer';
import { addMember } from '@walletd/server';
import {
  type Anvil,
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
 * Human approval as people run it: a key proposes over the API, members vote with
 * `walletd admin request approve|reject` (the dashboard stand-in), the quorum prepares the
 * withdrawal, and the API sends it.
 */
describe('withdrawal requests approved with the admin CLI', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  let pool: DetectPool;
  let app: TestApp;
  let s: Seeded;
  let follower: Follower;
  let walletId: number;
  let env: Record<string, string>;
  let configFile: string;
  const hexKey = randomBytes(32).toString('hex');
  const recipient = '0x000000000000000000000000000000000000dEaD';

  const api = (method: string, path: string, body?: unknown, key = s.rootKey) => call(app.url, method, `/v1${path}`, { key, body });
  const cli = (...args: string[]) => runWalletdAsync(['-c', configFile, 'admin', ...args], env);
  const ok = async (...args: string[]) => {
    const r = await cli(...args);
    if (r.status !== 0) throw new Error(`walletd admin ${args.join(' ')} failed: ${r.stderr}`);
    return r.json;
  };

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
    follower = testFollower(t.db, pool, settings);
    s = await seedCompany(t.db);
    walletId = (await api('POST', '/wallets', { name: 'treasury', chain: 'ethereum', network: 'devnet' })).body.id;
    const source = (await api('POST', `/wallets/${walletId}/addresses`)).body.address;
    await anvil.send(source, 5n * 10n ** 18n);
    await follower.tick();
  });
  afterAll(async () => {
    await app.close();
    await pool.close();
    await anvil.stop();
    await t.drop();
  });

  it('needs two sign-offs, refuses self-approval, wrong roles and double votes, then prepares and sends the approved intent', async () => {
    const policy = await ok(
      'policy',
      'add',
      '--company',
      String(s.companyId),
      '--name',
      'two sign-offs above 1 ETH',
      '--kind',
      'approval_above',
      '--asset',
      'ethereum:devnet:eth',
      '--threshold',
      '1',
      '--approvals',
      '2',
    );
    expect(policy).toMatchObject({ kind: 'approval_above', params: { threshold: '1 ETH', approvals: 2 }, enabled: true });
    expect(await ok('policy', 'list', '--company', String(s.companyId))).toHaveLength(1);

    const direct = await api('POST', `/wallets/${walletId}/withdrawals`, {
      asset: 'ETH',
      toAddress: recipient,
      amount: '2',
      idempotencyKey: 'direct-2',
    });
    expect(direct.status).toBe(403);
    expect(direct.body).toMatchObject({ code: 'policy_approval_required', policyIds: String(policy.id) });

    const alice = await addMember(t.db, { companyId: s.companyId, email: 'alice@acme.test', role: 'admin' });
    const bob = await addMember(t.db, { companyId: s.companyId, email: 'bob@acme.test', role: 'admin' });
    const dev = await addMember(t.db, { companyId: s.companyId, email: 'dev@acme.test', role: 'developer' });
    const proposer = await keyFor(t.db, s.companyId, { actions: ['withdrawal_requests:create', 'withdrawals:read'], createdBy: alice.id });
    const proposed = await api(
      'POST',
      '/withdrawal-requests',
      { walletId, asset: 'ETH', toAddress: recipient, amount: '2', note: 'supplier invoice 42', idempotencyKey: 'invoice-42' },
      proposer.key,
    );
    expect(proposed.status).toBe(201);
    expectSchema('WithdrawalRequest', proposed.body);
    expect(proposed.body).toMatchObject({
      status: 'pending',
      amount: '2',
      toAddress: recipient,
      requiredApprovals: 2,
      approvals: [],
      proposedByMember: alice.id,
      withdrawalId: null,
    });
    const id = String(proposed.body.id);
    // The same proposal again is the same request.
    const again = await api(
      'POST',
      '/withdrawal-requests',
      { walletId, asset: 'ETH', toAddress: recipient, amount: '2.0', note: 'supplier invoice 42', idempotencyKey: 'invoice-42' },
      proposer.key,
    );
    expect([again.status, again.body.id]).toEqual([200, proposed.body.id]);

    const self = await cli('request', 'approve', id, '--member', String(alice.id));
    expect(self.status).toBe(1);
    expect(self.stderr).toMatch(/proposed request \d+ and cannot approve it/);
    const developer = await cli('request', 'approve', id, '--member', String(dev.id));
    expect(developer.status).toBe(1);
    expect(developer.stderr).toMatch(/role: developer\) may not approve withdrawals/);

    const first = await ok('request', 'approve', id, '--member', String(bob.id));
    expect(first).toMatchObject({ code: 'policy_approvals_pending', policyIds: String(policy.id), request: { status: 'pending' } });
    expect(first.message).toMatch(/1 of 2 approvals/);
    const twice = await cli('request', 'approve', id, '--member', String(bob.id));
    expect(twice.status).toBe(1);
    expect(twice.stderr).toMatch(/already voted/);

    const quorum = await ok('request', 'approve', id, '--member', String(s.ownerId));
    expect(quorum.code).toBeUndefined();
    expect(quorum.request).toMatchObject({ status: 'approved', approvals: [{ memberId: bob.id }, { memberId: s.ownerId }] });
    expect(quorum.withdrawal).toMatchObject({ status: 'prepared', amount: '2', toAddress: recipient, requestId: proposed.body.id });
    const withdrawalId = quorum.withdrawal.id as number;
    const request = await api('GET', `/withdrawal-requests/${id}`, undefined, proposer.key);
    expectSchema('WithdrawalRequest', request.body);
    expect(request.body).toMatchObject({ status: 'approved', withdrawalId });

    // The approved amount and destination cannot be changed afterwards, not even in the database.
    await expect(t.db('withdrawals').where({ id: withdrawalId }).update({ amount: '1' })).rejects.toThrow(/cannot change/);
    await expect(
      t
        .db('withdrawal_requests')
        .where({ id: proposed.body.id })
        .update({ intent: JSON.stringify({ asset: {}, outputs: [] }) }),
    ).rejects.toThrow(/cannot change/);

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
    const carol = await addMember(t.db, { companyId: s.companyId, email: 'carol@acme.test', role: 'admin' });
    const proposed = await api('POST', '/withdrawal-requests', { walletId, asset: 'ETH', toAddress: recipient, amount: '0.5' });
    expect(proposed.body.requiredApprovals).toBe(1);
    const veto = await ok('request', 'reject', String(proposed.body.id), '--member', String(carol.id));
    expect(veto.request).toMatchObject({ status: 'rejected', approvals: [{ memberId: carol.id, decision: 'reject' }] });
    const late = await cli('request', 'approve', String(proposed.body.id), '--member', String(s.ownerId));
    expect(late.status).toBe(1);
    expect(late.stderr).toMatch(/already rejected/);
    expect(await t.db('withdrawals').where({ request_id: proposed.body.id }).count({ n: '*' })).toEqual([{ n: 0 }]);
  });
});
