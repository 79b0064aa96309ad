import { randomBytes } from 'node:crypto';
import { type ChainSettings, MasterKey, createLogger } from '@walletd/core';
import { parseEvent, verifySignature } from '@walletd/receiver';
import { createDetectPool, createIndexer, type DetectPool, type Follower } from '@walletd/indexer';
import { type Dispatcher, createDispatcher, loadPlugins, reconcileChain } from '@walletd/server';
import {
  type Anvil,
  type Seeded,
  type TestApp,
  type TestDatabase,
  type TestReceiver,
  type TestToken,
  ANVIL_FUNDER,
  call,
  createTestDatabase,
  deployTestToken,
  eventually,
  expectSchema,
  seedCompany,
  startAnvil,
  startReceiver,
  startTestApp,
  testConfig,
  testFollower,
} from '@walletd/test-harness';

const ETH = 10n ** 18n;
const hex = (n: bigint) => `0x${n.toString(16)}`;

interface Check {
  address: string | null;
  asset: { symbol: string };
  indexed: string;
  inFlight: string;
  onchain: string;
  drift: string;
  open: boolean;
}

/**
 * Reconciliation (issue 33) on anvil: the indexer's comparison of each address's indexed balance
 * with the node's. A deposit the indexer skipped (ETH credited by the node alone, a token transfer
 * that emits no Transfer log) is reported once, through the API, the opt-in event and the metric,
 * and cleared when it goes away; a clean address and a withdrawal in flight are not drifts.
 */
describe('reconciliation on anvil', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  let pool: DetectPool;
  let usdc: TestToken;
  let app: TestApp;
  let s: Seeded;
  let follower: Follower;
  let settings: ChainSettings;
  let walletId: number;
  let clean: string;
  let skipped: string;
  let paying: string;
  let allHook: number;
  let optInHook: number;
  let optInSecret: string;
  let rx: TestReceiver;
  let dispatcher: Dispatcher;
  const masterKey = new MasterKey(randomBytes(32));
  const plugins = loadPlugins();
  const key = { chain: 'ethereum', network: 'devnet' };

  const api = (method: string, path: string, body?: unknown) => call(app.url, method, `/v1${path}`, { key: s.rootKey, body });
  const round = async (blocks = 1) => {
    await anvil.mine(blocks);
    await follower.tick();
  };
  const over = () => ({
    chains: [settings],
    reconciliation: { nodeCallsPerSecond: 1000 },
    webhooks: { allowCidrs: ['127.0.0.0/8'] },
    rateLimit: { writesPerKeyPerMinute: 1000 },
  });
  const reconcile = () => reconcileChain({ db: t.db, config: testConfig(over()), plugins }, key);
  const checks = async () => {
    const res = await api('GET', `/wallets/${walletId}/reconciliation`);
    expect(res.status).toBe(200);
    expectSchema('WalletReconciliation', res.body);
    return res.body.checks as Check[];
  };
  const at = (all: Check[], address: string, symbol: string) => all.find((c) => c.address === address && c.asset.symbol === symbol);
  const driftGauge = async () => {
    const text = (await call(app.url, 'GET', '/metrics')).text as string;
    const m = /^walletd_reconciliation_drifts\{chain="ethereum",network="devnet"\} (\d+)$/m.exec(text);
    return m ? Number(m[1]) : null;
  };
  const deliveries = async (webhookId: number) =>
    (await t.db('webhook_deliveries').where({ webhook_id: webhookId }).orderBy('id').pluck('event_type')) as string[];

  beforeAll(async () => {
    t = await createTestDatabase();
    anvil = await startAnvil();
    pool = createDetectPool(1);
    usdc = await deployTestToken(anvil, 'USD Coin', 'USDC', 6);
    await usdc.mint(ANVIL_FUNDER, 100_000_000n);
    settings = {
      ...key,
      rpcUrl: anvil.url,
      confirmations: 2,
      startBlock: 0,
      tokens: [{ contract: usdc.address, symbol: 'USDC', decimals: 6 }],
    };
    app = await startTestApp(t.db, over(), masterKey);
    follower = testFollower(t.db, pool, settings);
    s = await seedCompany(t.db);
    walletId = (await api('POST', '/wallets', { name: 'hot', chain: 'ethereum', network: 'devnet' })).body.id;
    clean = (await api('POST', `/wallets/${walletId}/addresses`)).body.address;
    skipped = (await api('POST', `/wallets/${walletId}/addresses`)).body.address;
    paying = (await api('POST', `/wallets/${walletId}/addresses`)).body.address;
    for (const a of [clean, skipped, paying]) await anvil.send(a, ETH);
    await usdc.transfer(clean, 5_000_000n);
    await round(3);
    rx = await startReceiver();
    dispatcher = createDispatcher({ config: testConfig(over()), logger: createLogger({ level: 'silent' }), db: t.db, masterKey, plugins });
    const hook = async (events: string[], url = 'http://127.0.0.1:9/hook') =>
      (await api('POST', '/webhooks', { type: 'api', config: { url }, events })).body;
    allHook = (await hook(['*'])).id;
    // A real receiver: what it is sent is checked with @walletd/receiver and the schemas.
    const optIn = await hook(['reconciliation.drift', 'reconciliation.cleared'], `${rx.url}/walletd`);
    optInHook = optIn.id;
    optInSecret = optIn.signingSecret;
  });
  afterAll(async () => {
    await dispatcher?.stop();
    await rx?.close();
    await app.close();
    await pool.close();
    await anvil.stop();
    await t.drop();
  });

  it('a clean wallet: every address agrees with the node, nothing is announced, the gauge reads 0', async () => {
    await reconcile();
    await reconcile();
    const all = await checks();
    expect(at(all, clean, 'ETH')).toMatchObject({ indexed: '1', onchain: '1', drift: '0', open: false });
    expect(at(all, clean, 'USDC')).toMatchObject({ indexed: '5', onchain: '5', drift: '0', open: false });
    expect(all.every((c) => c.drift === '0' && !c.open)).toBe(true);
    expect(await deliveries(optInHook)).toEqual([]);
    expect(await driftGauge()).toBe(0);
  });

  it('a withdrawal in flight (mined, not yet tracked) is not a drift', async () => {
    const prepared = await api('POST', `/wallets/${walletId}/withdrawals`, {
      asset: 'ETH',
      toAddress: '0x000000000000000000000000000000000000bEEF',
      amount: '0.4',
      fromAddress: paying,
      idempotencyKey: 'in-flight',
    });
    expect(prepared.status).toBe(201);
    expect((await api('POST', `/withdrawals/${prepared.body.id}/broadcast`)).status).toBe(200);
    // anvil mined it; the indexer has not seen it: the node already reads less than the ledger.
    expect(BigInt(await anvil.rpc<string>('eth_getBalance', [paying, 'latest']))).toBeLessThan((ETH * 6n) / 10n + 1n);
    await reconcile();
    await reconcile();
    const c = at(await checks(), paying, 'ETH');
    expect(c).toMatchObject({ indexed: '1', drift: '0', open: false });
    expect(c?.inFlight).not.toBe('0');
    expect(await deliveries(optInHook)).toEqual([]);
  });

  it('a deposit the indexer skipped is announced once (API, opt-in webhook and feed, gauge), and cleared when it goes away', async () => {
    // ETH the node credits with no transaction to index, and a token transfer that emits no Transfer log.
    await anvil.rpc('anvil_setBalance', [skipped, hex(ETH + ETH / 2n)]);
    await usdc.setQuirks({ quiet: true });
    await usdc.transfer(skipped, 2_500_000n);
    await usdc.setQuirks({ quiet: false });
    await round(3);

    // Seen once: it could be a block the indexer has not reached yet; recorded, not announced.
    await reconcile();
    expect(at(await checks(), skipped, 'ETH')).toMatchObject({ indexed: '1', onchain: '1.5', drift: '0.5', open: false });
    expect(await deliveries(optInHook)).toEqual([]);

    const second = await reconcile();
    expect(second.drifts).toBe(2);
    const all = await checks();
    expect(at(all, skipped, 'ETH')).toMatchObject({ indexed: '1', onchain: '1.5', drift: '0.5', open: true });
    expect(at(all, skipped, 'USDC')).toMatchObject({ indexed: '0', onchain: '2.5', drift: '2.5', open: true });
    const list = await api('GET', '/reconciliation');
    expect(list.status).toBe(200);
    expectSchema('ReconciliationDriftList', list.body);
    expect((list.body.drifts as Check[]).map((d) => `${d.asset.symbol} ${d.drift}`).sort()).toEqual(['ETH 0.5', 'USDC 2.5']);
    expect(await driftGauge()).toBe(2);
    // Only the webhook that named the type gets it; `*` is the spec's six.
    expect(await deliveries(optInHook)).toEqual(['reconciliation.drift', 'reconciliation.drift']);
    expect((await deliveries(allHook)).filter((e) => e.startsWith('reconciliation.'))).toEqual([]);
    // The feed lists it only when asked for.
    const plain = await api('GET', '/events?limit=1000');
    expect((plain.body.events as { type: string }[]).some((e) => e.type.startsWith('reconciliation.'))).toBe(false);
    // The feed shows an event once every transaction that began before it has ended (its
    // visibility horizon); another process's open transaction can hide it for a moment.
    const feed = await eventually(
      () => api('GET', '/events?types=reconciliation.drift'),
      (r) => (r.body.events as unknown[]).length >= 2,
    );
    expectSchema('EventFeed', feed.body);
    const drifts = feed.body.events as { type: string; data: { address: string; amount: string; asset: { symbol: string } } }[];
    expect(drifts.map((e) => `${e.data.address} ${e.data.asset.symbol} ${e.data.amount}`).sort()).toEqual([
      `${skipped} ETH 0.5`,
      `${skipped} USDC 2.5`,
    ]);
    expect((await api('GET', '/events?types=bogus')).status).toBe(400);

    // Still there, unchanged: no second announcement.
    expect((await reconcile()).drifts).toBe(0);
    expect(await deliveries(optInHook)).toHaveLength(2);

    // The ETH goes away: cleared, announced once.
    await anvil.rpc('anvil_setBalance', [skipped, hex(ETH)]);
    expect((await reconcile()).cleared).toBe(1);
    expect(at(await checks(), skipped, 'ETH')).toMatchObject({ drift: '0', open: false });
    expect(await deliveries(optInHook)).toEqual(['reconciliation.drift', 'reconciliation.drift', 'reconciliation.cleared']);
    expect(await driftGauge()).toBe(1);

    // What the opt-in receiver is sent: signed, accepted by @walletd/receiver's parseEvent, and
    // exactly the schemas' envelope with the reconciliation data.
    await eventually(
      async () => {
        await dispatcher.runOnce();
        return rx.requests.length;
      },
      (n) => n >= 3,
    );
    const received = rx.requests.map((r) => {
      expect(verifySignature(optInSecret, r.rawBody, r.headers['x-service-signature'] as string)).toBe(true);
      const event = parseEvent(r.rawBody);
      expectSchema('EventEnvelope', JSON.parse(r.rawBody));
      return event;
    });
    expect(received.map((e) => e.type).sort()).toEqual(['reconciliation.cleared', 'reconciliation.drift', 'reconciliation.drift']);
    const cleared = received.find((e) => e.type === 'reconciliation.cleared');
    expect(cleared?.data).toMatchObject({ address: skipped, status: 'cleared', amount: '0', previousDrift: '0.5', onchain: '1' });

    // A replay of the `*` webhook's window re-queues the six, not what it never subscribed to.
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const replay = await api('POST', `/webhooks/${allHook}/replay`, { since });
    expect(replay.status).toBe(202);
    expect(replay.body.queued).toBeGreaterThan(0);
    expect((await deliveries(allHook)).filter((e) => e.startsWith('reconciliation.'))).toEqual([]);
  });

  it('runs in the indexer that leads the chain, every reconciliation.intervalMs', async () => {
    await t.db('reconciliation_runs').delete();
    const config = testConfig({ ...over(), reconciliation: { intervalMs: 1000, nodeCallsPerSecond: 1000 } });
    const indexer = createIndexer({
      db: t.db,
      logger: createLogger({ level: 'silent' }),
      registry: plugins,
      chains: [settings],
      threads: 1,
      reconciler: { intervalMs: 1000, run: (k, shouldStop) => reconcileChain({ db: t.db, config, plugins, shouldStop }, k) },
    });
    indexer.start();
    try {
      const run = await eventually(
        () => t.db('reconciliation_runs').where(key).first(),
        (r) => r?.pass_finished_at != null,
      );
      expect(run.last_error).toBeNull();
    } finally {
      await indexer.stop();
    }
  });
});
