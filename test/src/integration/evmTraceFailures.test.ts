import { Writable } from 'node:stream';
import { type ChainSettings, MasterKey, type Metrics, createLogger, createMetrics } from '@walletd/core';
import { type DetectPool, type Indexer, createDetectPool, createIndexer } from '@walletd/indexer';
import { createWallet, generateAddress, loadPlugins } from '@walletd/server';
import { randomBytes } from 'node:crypto';
import {
  type Anvil,
  type RpcCall,
  createTestDatabase,
  deployPayouts,
  eventually,
  seedCompany,
  shippedPlugins,
  startAnvil,
  startRpcProxy,
  startTestApp,
  type TestDatabase,
  testFollower,
} from '@walletd/test-harness';

const TRACE_METHODS = new Set(['debug_traceBlockByNumber', 'trace_block']);

/**
 * Issue 41 §1: a trace that fails is a failed read, never "no transfers" (Blockbook lost internal
 * transfers for good that way, trezor/blockbook #1760), and a node that refuses traces is said
 * once instead of silently missing deposits. anvil behind a proxy that breaks the trace answers.
 */
describe('EVM call traces that fail or are refused', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  let pool: DetectPool;
  const key = { chain: 'ethereum', network: 'devnet' };
  const masterKey = new MasterKey(randomBytes(32));
  const cleanup: (() => Promise<unknown>)[] = [];
  const logs: string[] = [];

  beforeEach(async () => {
    t = await createTestDatabase();
    anvil = await startAnvil();
    pool = createDetectPool(1);
    logs.length = 0;
  });
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
    await pool.close();
    await anvil.stop();
    await t.drop();
  });

  const settings = (rpcUrl: string, extra: Partial<ChainSettings> = {}): ChainSettings => ({
    ...key,
    rpcUrl,
    startBlock: 0,
    confirmations: 1,
    pollIntervalMs: 50,
    rpcRetries: 0,
    ...extra,
  });
  function indexer(rpcUrl: string, metrics: Metrics, haltBackoffMs = 600_000): Indexer {
    const destination = new Writable({
      write(chunk, _enc, cb) {
        logs.push(String(chunk));
        cb();
      },
    });
    const ix = createIndexer({
      db: t.db,
      logger: createLogger({ level: 'info', destination }),
      registry: loadPlugins(),
      chains: [settings(rpcUrl)],
      threads: 1,
      metrics,
      haltBackoffMs,
    });
    ix.start();
    cleanup.push(() => ix.stop());
    return ix;
  }
  async function readyz(rpcUrl: string) {
    const app = await startTestApp(t.db, { chains: [settings(rpcUrl)] });
    try {
      const res = await fetch(`${app.url}/readyz`);
      return {
        status: res.status,
        body: (await res.json()) as { message?: string; chains?: { reason?: string; halted?: { message: string } }[] },
      };
    } finally {
      await app.close();
    }
  }
  const traceFailures = async (metrics: Metrics) =>
    (await metrics.traceFailures.get()).values.filter((v) => v.labels.chain === 'ethereum').reduce((n, v) => n + v.value, 0);
  async function depositAddress(): Promise<string> {
    const s = await seedCompany(t.db);
    const w = await createWallet(
      t.db,
      masterKey,
      { companyId: s.companyId, name: 'hot', chain: 'ethereum', network: 'devnet' },
      shippedPlugins(),
    );
    const row = await t.db('wallets').where({ id: w.id }).first();
    return (await generateAddress({ db: t.db, masterKey, plugins: loadPlugins() }, row, null)).address;
  }

  it('a block whose traces fail (an error, null, a list of another length) is not committed, /readyz says traces_unavailable, and once traces work the deposit is credited exactly once', async () => {
    const to = await depositAddress();
    const payouts = await deployPayouts(anvil);
    const forward = await payouts.forward(to, 123_456_789n);
    const height = `0x${BigInt((await anvil.receipt(forward)).blockNumber).toString(16)}`;
    // The probe reads the head's traces: an empty block above the deposit keeps it apart from the failing one.
    await anvil.mine(1);
    let answer: 'error' | 'null' | 'short' | 'ok' = 'error';
    const proxy = await startRpcProxy(anvil.url, (c: RpcCall, reply: { result?: unknown; error?: unknown }) => {
      if (!TRACE_METHODS.has(c.method) || c.params?.[0] !== height || answer === 'ok') return;
      if (answer === 'error') {
        delete reply.result;
        reply.error = { code: -32000, message: 'tracing failed: out of memory' };
      } else reply.result = answer === 'null' ? null : [];
    });
    cleanup.push(() => proxy.close());
    const metrics = createMetrics();
    indexer(proxy.url, metrics);

    for (const next of ['null', 'short', 'ok'] as const) {
      const before = await traceFailures(metrics);
      const health = await eventually(
        async () => ({ failures: await traceFailures(metrics), row: await t.db('chain_health').where(key).first() }),
        (v) => v.failures > before && v.row?.reason === 'traces_unavailable',
      );
      expect(health.row).toMatchObject({ status: 'failing', reason: 'traces_unavailable', node_reachable: true });
      // Nothing of the block, nor past it, was committed.
      const cursor = await t.db('chain_cursors').where(key).first('height');
      expect(cursor === undefined || BigInt(cursor.height) < BigInt(height)).toBe(true);
      expect(await t.db('transfers').count('* as n')).toEqual([{ n: 0 }]);
      if (next === 'null') {
        const ready = await readyz(proxy.url);
        expect(ready.status).toBe(503);
        expect(ready.body.chains?.map((c) => c.reason)).toEqual(['traces_unavailable']);
      }
      answer = next;
    }

    const credited = await eventually(
      () => t.db('transfers').select('tx_hash', 'event_index', 'amount', 'status'),
      (rows) => rows.length > 0 && rows[0]?.status === 'confirmed',
    );
    expect(credited).toEqual([{ tx_hash: forward, event_index: 2 ** 30 + 1, amount: '123456789', status: 'confirmed' }]);
    const head = await anvil.head();
    await eventually(
      () => t.db('chain_cursors').where(key).first('height'),
      (c) => c !== undefined && BigInt(c.height) === head,
    );
    expect(await t.db('events').where({ type: 'deposit.detected' }).count('* as n')).toEqual([{ n: 1 }]);
    expect((await readyz(proxy.url)).status).toBe(200);
  });

  it('a node that refuses both trace methods stops the chain with traces_refused, said once; with internalTransfers "off" it is followed without internal transfers', async () => {
    const to = await depositAddress();
    const payouts = await deployPayouts(anvil);
    const forward = await payouts.forward(to, 5_000n);
    const direct = await anvil.send(to, 7_000n);
    const proxy = await startRpcProxy(anvil.url, (c: RpcCall, reply: { result?: unknown; error?: unknown }) => {
      if (!TRACE_METHODS.has(c.method)) return;
      delete reply.result;
      reply.error = { code: -32601, message: `the method ${c.method} does not exist/is not available` };
    });
    cleanup.push(() => proxy.close());
    const metrics = createMetrics();
    // A short back-off: the node is asked again several times while the test looks.
    indexer(proxy.url, metrics, 50);
    const row = await eventually(
      () => t.db('followed_chains').where(key).first(),
      (r) => r?.halted_code === 'traces_refused',
    );
    expect(row.halted_message).toContain('ethereum/devnet');
    expect(row.halted_message).toContain('debug_traceBlockByNumber: the method debug_traceBlockByNumber does not exist/is not available');
    expect(row.halted_message).toContain('internalTransfers: "off"');
    // Asked again and again (the back-off), said once.
    await eventually(
      async () => proxy.calls.filter((m) => m === 'trace_block').length,
      (n) => n >= 3,
    );
    const said = logs
      .map((l) => JSON.parse(l) as { level: number; reason?: string })
      .filter((l) => l.reason === 'traces_refused' && l.level >= 40);
    expect(said).toHaveLength(1);
    const ready = await readyz(proxy.url);
    expect(ready.status).toBe(503);
    expect(ready.body.chains?.[0]?.reason).toBe('traces_refused');
    expect(ready.body.chains?.[0]?.halted?.message).toContain('serves no call traces');
    expect(await t.db('transfers').count('* as n')).toEqual([{ n: 0 }]);

    // The operator chose `off`: the chain is followed; the contract's payment is not seen, the direct one is.
    await cleanup.pop()?.(); // the stopped indexer (the proxy's close stays queued)
    await testFollower(t.db, pool, settings(proxy.url, { internalTransfers: 'off' })).tick();
    const rows = await t.db('transfers').select('tx_hash', 'amount');
    expect(rows).toEqual([{ tx_hash: direct, amount: '7000' }]);
    expect(rows.some((r) => r.tx_hash === forward)).toBe(false);
  });

  it('a node that serves trace_block but not debug_traceBlockByNumber (openethereum-like) is read with flat traces, crediting the same', async () => {
    const to = await depositAddress();
    const payouts = await deployPayouts(anvil);
    const forward = await payouts.forward(to, 31_337n);
    const proxy = await startRpcProxy(anvil.url, (c: RpcCall, reply: { result?: unknown; error?: unknown }) => {
      if (c.method !== 'debug_traceBlockByNumber') return;
      delete reply.result;
      reply.error = { code: -32601, message: 'Method not found' };
    });
    cleanup.push(() => proxy.close());
    await testFollower(t.db, pool, settings(proxy.url)).tick();
    expect(await t.db('transfers').select('tx_hash', 'event_index', 'amount', 'event_type')).toEqual([
      { tx_hash: forward, event_index: 2 ** 30 + 1, amount: '31337', event_type: 'internal_transfer' },
    ]);
    // One probe of each method, then every block through trace_block alone.
    expect(proxy.calls.filter((m) => m === 'debug_traceBlockByNumber')).toHaveLength(1);
    expect(proxy.calls.filter((m) => m === 'trace_block').length).toBeGreaterThan(1);
  });
});
