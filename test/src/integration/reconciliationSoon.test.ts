import { randomBytes } from 'node:crypto';
import { type ChainSettings, MasterKey, createLogger } from '@walletd/core';
import { type DetectPool, type Follower, createDetectPool, createIndexer } from '@walletd/indexer';
import { chainReconciler, checkNow, loadPlugins } from '@walletd/server';
import { validator } from '@walletd/schemas';
import {
  type Anvil,
  type RpcProxy,
  type Seeded,
  type TestApp,
  type TestDatabase,
  call,
  createTestDatabase,
  eventually,
  expectSchema,
  seedCompany,
  startAnvil,
  startRpcProxy,
  startTestApp,
  testConfig,
  testFollower,
} from '@walletd/test-harness';

const ETH = 10n ** 18n;
const hex = (n: bigint) => `0x${n.toString(16)}`;

interface DriftEvent {
  address: string | null;
  amount: string;
  explanation?: {
    causes: { cause: string; description: string; transfers?: number[] }[];
    transactions: { type: string; id: number; reason: string | null; status: string }[];
  };
}

/**
 * Reconciliation that helps (issue 41 §5) on anvil: a drift (ETH the node credits a deposit address
 * with no transaction walletd could index: `anvil_setBalance`) is announced by the first comparison
 * right after the indexer starts and catches up, not an interval (10 minutes) later; "check now"
 * through the API finds and announces it at once, one comparison however many ask at the same time;
 * and a drift the records can explain (a reorg retraction, a node without traces) says so.
 */
describe('reconciliation soon, on demand, explained (anvil)', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  let proxy: RpcProxy;
  let pool: DetectPool;
  let app: TestApp;
  let s: Seeded;
  let other: Seeded;
  let follower: Follower;
  let settings: ChainSettings;
  let walletId: number;
  const addr: Record<'atStart' | 'onDemand' | 'retracted', string> = { atStart: '', onDemand: '', retracted: '' };
  let lone: string;
  // Holds the node's balance reads while open is null (the concurrency test), counts them.
  let gate: Promise<void> | null = null;
  const plugins = loadPlugins();
  const masterKey = new MasterKey(randomBytes(32));
  const key = { chain: 'ethereum', network: 'devnet' };

  // The app reads balances through the proxy (to count and hold them); the follower reads anvil.
  const over = (reconciliation: Record<string, number> = {}) => ({
    chains: [{ ...settings, rpcUrl: proxy.url }],
    reconciliation: { nodeCallsPerSecond: 1000, confirmDelayMs: 200, checkNowMinIntervalMs: 600_000, ...reconciliation },
    rateLimit: { writesPerKeyPerMinute: 1000 },
  });
  const api = (method: string, path: string, as = s, body?: unknown) => call(app.url, method, `/v1${path}`, { key: as.rootKey, body });
  const round = async (blocks = 1) => {
    await anvil.mine(blocks);
    await follower.tick();
  };
  const driftEvents = async (address: string) =>
    (
      (await t.db('events').where({ type: 'reconciliation.drift' }).orderBy('created_at').pluck('body')) as (
        | string
        | { data: DriftEvent }
      )[]
    )
      .map((b) => (typeof b === 'string' ? (JSON.parse(b) as { data: DriftEvent }) : b))
      .filter((e) => e.data.address === address)
      .map((e) => {
        // What a receiver is sent: the envelope's schema, `explanation` included.
        expectSchema('EventEnvelope', e);
        return e.data;
      });

  beforeAll(async () => {
    t = await createTestDatabase();
    anvil = await startAnvil();
    proxy = await startRpcProxy(anvil.url, {
      before: (c) => (c.method === 'eth_getBalance' && gate ? gate.then(() => undefined) : undefined),
    });
    pool = createDetectPool(1);
    settings = { ...key, rpcUrl: anvil.url, confirmations: 2, startBlock: 0, tokens: [] };
    app = await startTestApp(t.db, over(), masterKey);
    follower = testFollower(t.db, pool, settings);
    s = await seedCompany(t.db);
    walletId = (await api('POST', '/wallets', s, { name: 'hot', chain: 'ethereum', network: 'devnet' })).body.id;
    for (const k of Object.keys(addr) as (keyof typeof addr)[])
      addr[k] = (await api('POST', `/wallets/${walletId}/addresses`)).body.address;
    other = await seedCompany(t.db, 'paid', 'Other');
    const otherWallet = (await api('POST', '/wallets', other, { name: 'other', chain: 'ethereum', network: 'devnet' })).body.id;
    lone = (await api('POST', `/wallets/${otherWallet}/addresses`, other)).body.address;
    for (const a of [...Object.values(addr), lone]) await anvil.send(a, ETH);
    await round(3);
  });
  afterAll(async () => {
    await app.close();
    await proxy.close();
    await pool.close();
    await anvil.stop();
    await t.drop();
  });

  it('the first comparison runs as soon as the indexer has caught up, and its second look follows quickly: the drift is announced without waiting out the 10-minute interval', async () => {
    await anvil.rpc('anvil_setBalance', [addr.atStart, hex(ETH + ETH / 2n)]);
    await anvil.mine(1);
    // The defaults but for the second look's delay: intervalMs stays 600000 (10 minutes).
    const config = testConfig(over());
    expect(config.reconciliation.intervalMs).toBe(600_000);
    const indexer = createIndexer({
      db: t.db,
      logger: createLogger({ level: 'silent' }),
      registry: plugins,
      chains: [settings],
      threads: 1,
      reconciler: chainReconciler({ db: t.db, config, plugins }),
    });
    indexer.start();
    try {
      const events = await eventually(
        () => driftEvents(addr.atStart),
        (e) => e.length > 0,
      );
      expect(events.map((e) => e.amount)).toEqual(['0.5']);
      // Nothing in the records explains ETH that arrived with no transaction: no cause is invented.
      expect(events[0]?.explanation?.causes).toEqual([]);
    } finally {
      await indexer.stop();
    }
  });

  it('"check now" through the API compares at once and announces what it finds', async () => {
    await anvil.rpc('anvil_setBalance', [addr.onDemand, hex(ETH + ETH / 4n)]);
    const res = await api('POST', '/reconciliation/checks');
    expect(res.status).toBe(200);
    expectSchema('ReconciliationCheckRun', res.body);
    expect(res.body.joined).toBe(false);
    expect(res.body.chains).toEqual([
      expect.objectContaining({ ...key, addresses: 3, complete: true, error: null, awaiting: 0, drifts: 1 }),
    ]);
    const found = (res.body.drifts as { address: string; drift: string; open: boolean }[]).find((d) => d.address === addr.onDemand);
    expect(found).toMatchObject({ drift: '0.25', open: true });
    expect((await driftEvents(addr.onDemand)).map((e) => e.amount)).toEqual(['0.25']);
    // The other company's wallets are not this key's to see, nor compared for it.
    expect((res.body.drifts as { address: string }[]).some((d) => d.address === lone)).toBe(false);
  });

  it('concurrent "check now" calls share one comparison; another right after is refused (429 rate_limited)', async () => {
    await anvil.rpc('anvil_setBalance', [lone, hex(2n * ETH)]);
    let open: () => void = () => undefined;
    gate = new Promise((r) => {
      open = r;
    });
    const before = proxy.calls.length;
    const first = api('POST', '/reconciliation/checks', other);
    // The first comparison is under way (its balance read is held at the node) when the second arrives.
    await eventually(
      async () => proxy.calls.slice(before).filter((m) => m === 'eth_getBalance').length,
      (n) => n >= 1,
    );
    // A second caller while it runs (the service the route calls: no delivery delay to wait out)
    // gets that same run, not a comparison of its own.
    const second = checkNow({ db: t.db, config: testConfig(over()), plugins }, other.companyId);
    expect(second.joined).toBe(true);
    gate = null;
    open();
    const a = await first;
    const b = await second.run;
    expect(a.status).toBe(200);
    expect(a.body.joined).toBe(false);
    expect(b.startedAt.toISOString()).toBe(a.body.startedAt);
    // One comparison: the lone address read once at the first look and once at the second, not twice each.
    expect(proxy.calls.slice(before).filter((m) => m === 'eth_getBalance')).toHaveLength(2);
    expect((a.body.drifts as { address: string; drift: string }[]).map((d) => `${d.address} ${d.drift}`)).toEqual([`${lone} 1`]);
    const third = await api('POST', '/reconciliation/checks', other);
    expect(third.status).toBe(429);
    expect(third.body.code).toBe('rate_limited');
    // The wait is the standard header; the body keeps the spec's error shape (the fuzz found a field).
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(validator('ErrorBody')(third.body)).toBe(true);
    // Another API process's check under way (its claim in the database, not finished): this one
    // waits for it, whatever the minimum interval.
    await t.db('reconciliation_check_now').where({ company_id: other.companyId }).update({ started_at: t.db.fn.now(), finished_at: null });
    const elsewhere = checkNow({ db: t.db, config: testConfig(over({ checkNowMinIntervalMs: 0 })), plugins }, other.companyId);
    await expect(elsewhere.run).rejects.toMatchObject({
      code: 'rate_limited',
      message: expect.stringMatching(/under way in another process/),
    });
  });

  it('a drift the records explain says so: a reorg retraction (transfer rejected with reason reorg, audit chain.deep_reorg) and a node without traces', async () => {
    const deposit = (await t
      .db('transfers as tr')
      .join('addresses as a', 'a.id', 'tr.address_id')
      .where({ 'a.address': addr.retracted, 'tr.status': 'confirmed' })
      .first('tr.id', 'tr.tx_hash')) as { id: string; tx_hash: string };
    // What the deep-reorg retraction (issue 41 §2) writes: the credit taken back and an audit row.
    // Here the node still holds the coins, so the ledger and the node now differ by the deposit.
    await t.db('transfers').where({ id: deposit.id }).update({ status: 'rejected', reason: 'reorg', updated_at: t.db.fn.now() });
    await t.db('audit_log').insert({
      company_id: null,
      actor_type: 'system',
      action: 'chain.deep_reorg',
      details: { ...key, ancestor: 3, from: 5, retractedTransfers: [Number(deposit.id)], withdrawals: [] },
    });
    await t.db('chain_health').where(key).update({ reason: 'traces_unavailable' });
    const config = testConfig(over({ checkNowMinIntervalMs: 0 }));
    const done = await checkNow({ db: t.db, config, plugins }, s.companyId).run;
    expect(done.chains[0]).toMatchObject({ error: null, awaiting: 0 });

    const [event] = await driftEvents(addr.retracted);
    expect(event?.amount).toBe('1');
    const causes = event?.explanation?.causes ?? [];
    expect(causes.map((c) => c.cause)).toEqual(['reorg', 'traces_unavailable']);
    expect(causes[0]?.transfers).toEqual([Number(deposit.id)]);
    expect(causes[0]?.description).toContain('from block 5 back to 3');
    expect(event?.explanation?.transactions).toEqual([
      expect.objectContaining({ type: 'transfer', id: Number(deposit.id), txHash: deposit.tx_hash, status: 'rejected', reason: 'reorg' }),
    ]);
    // The API's open drifts carry the same explanation (the console's overview lists them).
    const list = await api('GET', '/reconciliation');
    expectSchema('ReconciliationDriftList', list.body);
    const open = (list.body.drifts as { address: string; explanation: DriftEvent['explanation'] }[]).find(
      (d) => d.address === addr.retracted,
    );
    expect(open?.explanation?.causes.map((c) => c.cause)).toEqual(['reorg', 'traces_unavailable']);
  });
});
