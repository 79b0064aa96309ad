import { randomBytes } from 'node:crypto';
import { type ChainSettings, MasterKey, publishChainHealth } from '@walletd/core';
import { createDetectPool, type DetectPool, type Follower } from '@walletd/indexer';
import {
  type Anvil,
  type ConsoleServer,
  type RpcProxy,
  type Seeded,
  type TestApp,
  type TestDatabase,
  call,
  createTestDatabase,
  onboardMember,
  seedCompany,
  startAnvil,
  startConsole,
  startRpcProxy,
  startTestApp,
  testFollower,
} from '@walletd/test-harness';

/**
 * The console's read pages over HTTP as the browser calls them: the overview's balances (exact,
 * from what the indexer credited) and chain health, transactions found by hash or address,
 * withdrawals with who asked and who approved, and the inbox's "approved, not yet prepared" answer
 * when the node is down at the quorum, retried with "Prepare now" once it is back.
 */
describe('console read pages', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  let proxy: RpcProxy;
  let pool: DetectPool;
  let app: TestApp;
  let con: ConsoleServer;
  let s: Seeded;
  let follower: Follower;
  let walletId: number;
  let source: string;
  let depositHash: string;
  let nodeDown = false;
  const recipient = '0x000000000000000000000000000000000000dEaD';
  const api = (method: string, path: string, body?: unknown, key = s.rootKey) => call(app.url, method, `/v1${path}`, { key, body });
  type Member = Awaited<ReturnType<typeof onboardMember>>;
  let alice: Member;

  beforeAll(async () => {
    t = await createTestDatabase();
    anvil = await startAnvil();
    // The API and the console reach the node through a proxy the test can cut; the indexer reads it directly.
    proxy = await startRpcProxy(anvil.url, { before: () => (nodeDown ? 'drop' : undefined) });
    pool = createDetectPool(1);
    const direct: ChainSettings = { chain: 'ethereum', network: 'devnet', rpcUrl: anvil.url, confirmations: 1, startBlock: 0 };
    const viaProxy = { ...direct, rpcUrl: proxy.url };
    const key = new MasterKey(randomBytes(32));
    app = await startTestApp(t.db, { chains: [viaProxy] }, key);
    con = await startConsole(t.db, { chains: [viaProxy] }, key);
    follower = testFollower(t.db, pool, direct);
    s = await seedCompany(t.db);
    walletId = (await api('POST', '/wallets', { name: 'treasury', chain: 'ethereum', network: 'devnet' })).body.id;
    source = (await api('POST', `/wallets/${walletId}/addresses`)).body.address;
    // One wei more than 5 ETH: a float would lose it.
    depositHash = await anvil.send(source, 5n * 10n ** 18n + 1n);
    await anvil.mine(1);
    await follower.tick();
    alice = await onboardMember(con, t.db, { companyId: s.companyId, email: 'alice@acme.test', role: 'admin' });
  });
  afterAll(async () => {
    await con?.close();
    await app?.close();
    await pool?.close();
    await proxy?.close();
    await anvil?.stop();
    await t?.drop();
  });

  it('overview: the wallet by name with exact balances, and the chain’s indexer health and lag', async () => {
    const res = await alice.b.call('GET', '/console/api/overview');
    expect(res.status).toBe(200);
    expect(res.body.wallets).toEqual([
      expect.objectContaining({
        id: walletId,
        name: 'treasury',
        chain: 'ethereum',
        network: 'devnet',
        balances: [
          expect.objectContaining({
            asset: expect.objectContaining({ key: 'ethereum:devnet:eth', symbol: 'ETH' }),
            confirmed: '5.000000000000000001',
            pending: '0',
            reserved: '0',
            available: '5.000000000000000001',
          }),
        ],
      }),
    ]);
    // Before any indexer reported: said so, not a guess.
    expect(res.body.chains).toEqual([expect.objectContaining({ chain: 'ethereum', ready: false, reason: 'not_indexed' })]);
    // Nor compared with the node yet (reconciliation runs in the indexer, every reconciliation.intervalMs).
    expect(res.body.reconciliation).toEqual([
      { chain: 'ethereum', network: 'devnet', openDrifts: 0, lastRunAt: null, lastPassAt: null, lastError: null },
    ]);

    // The record the indexer writes after a round (chainHealthReporter), with the follower's own figures.
    const { head, indexed } = follower.stats();
    await publishChainHealth(t.db, {
      ...follower.key,
      status: 'ok',
      reason: null,
      nodeReachable: true,
      head: head + 3n,
      indexed,
      lastError: null,
    });
    const after = await alice.b.call('GET', '/console/api/overview');
    expect(after.body.chains).toEqual([
      expect.objectContaining({
        chain: 'ethereum',
        network: 'devnet',
        ready: true,
        head: (head + 3n).toString(),
        indexed: indexed.toString(),
        lag: '3',
        nodeReachable: true,
      }),
    ]);
    expect(indexed).toBe(await anvil.head());
  });

  it('overview: a banner for a reorg deeper than the threshold on a followed chain, from its audit row', async () => {
    expect((await alice.b.call('GET', '/console/api/overview')).body.deepReorgs).toEqual([]);
    // The row as the indexer's rewind writes it (indexer deepReorgAudit.ts; the reorg itself is in deepReorg.test.ts).
    const details = { chain: 'ethereum', network: 'devnet', ancestor: '7', from: '12', retractedTransfers: [1], withdrawals: [] };
    const row = { company_id: null, actor_type: 'system', action: 'chain.deep_reorg', target_type: 'chain', details };
    await t.db('audit_log').insert([
      { ...row, target_id: 'ethereum/devnet' },
      // A chain this process does not follow is not its banner.
      { ...row, target_id: 'ethereum/other', details: { ...details, network: 'other' } },
    ]);
    const res = await alice.b.call('GET', '/console/api/overview');
    expect(res.body.deepReorgs).toEqual([{ chain: 'ethereum', network: 'devnet', at: expect.any(String), ancestor: '7', from: '12' }]);
  });

  it('transactions: found by hash and by address, filtered by wallet, paged by keyset; bad input is a 400 in the spec shape', async () => {
    const byHash = await alice.b.call('GET', `/console/api/transactions?q=${depositHash.toUpperCase().replace('0X', '0x')}`);
    expect(byHash.status).toBe(200);
    expect(byHash.body.transactions).toEqual([
      expect.objectContaining({
        kind: 'deposit',
        txHash: depositHash,
        amount: '5.000000000000000001',
        status: 'confirmed',
        walletName: 'treasury',
      }),
    ]);
    const byAddress = await alice.b.call('GET', `/console/api/transactions?q=${source.toLowerCase()}`);
    expect(byAddress.body.transactions.map((x: { txHash: string }) => x.txHash)).toEqual([depositHash]);
    expect((await alice.b.call('GET', `/console/api/transactions?q=${'ab'.repeat(32)}`)).body.transactions).toEqual([]);

    const depositId = byHash.body.transactions[0].id as number;
    const detail = await alice.b.call('GET', `/console/api/transactions/deposits/${depositId}`);
    expect(detail.body).toMatchObject({ txHash: depositHash, walletName: 'treasury', status: 'confirmed' });
    expect(detail.body.lifecycle.map((l: { state: string }) => l.state)).toEqual(['detected', 'confirmed']);

    await anvil.send(source, 10n ** 15n);
    await anvil.mine(1);
    await follower.tick();
    const first = await alice.b.call('GET', `/console/api/transactions?walletId=${walletId}&limit=1`);
    expect(first.body.transactions).toHaveLength(1);
    expect(first.body.transactions[0].amount).toBe('0.001');
    const second = await alice.b.call('GET', `/console/api/transactions?walletId=${walletId}&limit=1&after=${first.body.next}`);
    expect(second.body.transactions.map((x: { txHash: string }) => x.txHash)).toEqual([depositHash]);

    // A held deposit (what the follower records for a token whose balance did not move by what it
    // logged: evmTokensThatMisreport.test.ts) shows held, with its reason; the row is put back after.
    const heldId = first.body.transactions[0].id as number;
    await t.db('transfers').where({ id: heldId }).update({ status: 'pending', reason: 'balance_mismatch' });
    const held = await alice.b.call('GET', `/console/api/transactions/deposits/${heldId}`);
    expect(held.body.lifecycle.map((l: { state: string; detail?: string }) => [l.state, l.detail ?? null])).toEqual([
      ['detected', expect.any(String)],
      ['held', 'balance_mismatch'],
    ]);
    await t.db('transfers').where({ id: heldId }).update({ status: 'confirmed', reason: null });

    for (const bad of ['q=%27%3B%20drop', 'q=short', 'after=nonsense', 'limit=0', 'walletId=abc']) {
      const res = await alice.b.call('GET', `/console/api/transactions?${bad}`);
      expect([bad, res.status, res.body.code]).toEqual([bad, 400, 'validation_failed']);
      expect(res.body).toEqual(expect.objectContaining({ error: 'Bad Request', code: 'validation_failed', message: expect.any(String) }));
    }
  });

  it('another company sees none of it: an empty overview and list, 404 for the wallet, the deposit and the withdrawal', async () => {
    const other = await seedCompany(t.db);
    const mallory = await onboardMember(con, t.db, { companyId: other.companyId, email: 'mallory@other.test', role: 'admin' });
    expect((await mallory.b.call('GET', '/console/api/overview')).body.wallets).toEqual([]);
    expect((await mallory.b.call('GET', `/console/api/transactions?q=${depositHash}`)).body.transactions).toEqual([]);
    expect((await mallory.b.call('GET', '/console/api/transactions')).body.transactions).toEqual([]);
    expect((await mallory.b.call('GET', `/console/api/transactions?walletId=${walletId}`)).status).toBe(404);
    const [deposit] = await t.db('transfers').where({ tx_hash: depositHash });
    expect((await mallory.b.call('GET', `/console/api/transactions/deposits/${deposit.id}`)).status).toBe(404);
    const w = await api('POST', `/wallets/${walletId}/withdrawals`, {
      asset: 'ETH',
      toAddress: recipient,
      amount: '0.1',
      idempotencyKey: 'x-co',
    });
    expect(w.status).toBe(201);
    expect((await mallory.b.call('GET', '/console/api/withdrawals')).body.withdrawals).toEqual([]);
    expect((await mallory.b.call('GET', `/console/api/withdrawals/${w.body.id}`)).status).toBe(404);
    await api('POST', `/withdrawals/${w.body.id}/cancel`);
  });

  it('withdrawals: status, amount, fee, hash, who proposed and approved, and the history', async () => {
    const proposed = await api('POST', '/withdrawal-requests', { walletId, asset: 'ETH', toAddress: recipient, amount: '1.5' });
    const voted = await alice.b.call('POST', `/console/api/requests/${proposed.body.id}/approve`);
    expect(voted.body.prepared).toBe(true);
    const id = voted.body.withdrawal.id as number;
    expect((await api('POST', `/withdrawals/${id}/broadcast`)).body.status).toBe('broadcast');
    await anvil.mine(1);
    await follower.tick();
    const list = await alice.b.call('GET', '/console/api/withdrawals');
    const row = list.body.withdrawals.find((w: { id: number }) => w.id === id);
    expect(row).toMatchObject({
      status: 'confirmed',
      amount: '1.5',
      toAddress: recipient,
      walletName: 'treasury',
      proposedBy: `owner-${s.companyId}@example.com`,
      approvedBy: [{ email: 'alice@acme.test', at: expect.any(String) }],
      fee: { amount: expect.stringMatching(/^0\.[0-9]+$/) },
      txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    const detail = await alice.b.call('GET', `/console/api/withdrawals/${id}`);
    expect(detail.body.history.map((h: { status: string }) => h.status)).toEqual(['prepared', 'signed', 'broadcast', 'confirmed']);
    expect((await alice.b.call('GET', '/console/api/withdrawals?status=nonsense')).body.code).toBe('validation_failed');
    expect((await alice.b.call('GET', '/console/api/withdrawals?after=-1')).status).toBe(400);
    // By kind (issue 47 §4): the payout is listed as one, and is no sweep or gas top-up.
    expect(row.kind).toBe('payout');
    const payouts = (await alice.b.call('GET', '/console/api/withdrawals?kind=payout')).body.withdrawals as { id: number; kind: string }[];
    expect(payouts.map((w) => w.id)).toContain(id);
    expect(new Set(payouts.map((w) => w.kind))).toEqual(new Set(['payout']));
    expect((await alice.b.call('GET', '/console/api/withdrawals?kind=sweep')).body.withdrawals).toEqual([]);
    expect((await alice.b.call('GET', '/console/api/withdrawals?kind=refund')).body).toMatchObject({
      code: 'validation_failed',
      message: 'kind must be one of payout, sweep, gas_topup',
    });
  });

  it('quorum with the node down: approved, not yet prepared, with the reason; Prepare now once it is back prepares it, once', async () => {
    const viewer = await onboardMember(con, t.db, { companyId: s.companyId, email: 'viewer@acme.test', role: 'viewer' });
    const proposed = await api('POST', '/withdrawal-requests', { walletId, asset: 'ETH', toAddress: recipient, amount: '0.25' });
    const id = proposed.body.id as number;
    nodeDown = true;
    const voted = await alice.b.call('POST', `/console/api/requests/${id}/approve`);
    nodeDown = false;
    expect(voted.status).toBe(200);
    expect(voted.body).toMatchObject({ prepared: false, withdrawal: null, request: { status: 'approved', withdrawalId: null } });
    expect(voted.body.reason).toMatch(/node did not answer/);
    expect(voted.body.message).toBe(`approved, not yet prepared: ${voted.body.reason}`);
    expect(voted.body.request.lastError).toBe(voted.body.reason);

    const refused = await viewer.b.call('POST', `/console/api/requests/${id}/prepare`);
    expect([refused.status, refused.body.code]).toEqual([403, 'role_insufficient']);

    const prepared = await alice.b.call('POST', `/console/api/requests/${id}/prepare`);
    expect(prepared.status).toBe(200);
    expect(prepared.body).toMatchObject({
      prepared: true,
      request: { status: 'approved', lastError: null },
      withdrawal: { status: 'prepared' },
    });
    const again = await alice.b.call('POST', `/console/api/requests/${id}/prepare`);
    expect(again.body.withdrawal.id).toBe(prepared.body.withdrawal.id);
    expect(await t.db('withdrawals').where({ request_id: id }).count({ n: '*' })).toEqual([{ n: 1 }]);
    const audited = await t.db('audit_log').where({ action: 'withdrawal_request.prepared', target_id: String(id) });
    expect(audited[0]).toMatchObject({ actor_type: 'member', actor_id: String(alice.memberId) });
  });
});
