import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ChainSettings, createLogger, createMetrics, type Metrics } from '@walletd/core';
import { createDetectPool, createIndexer, type DetectPool, type Indexer } from '@walletd/indexer';
import { loadPlugins } from '@walletd/server';
import {
  type Anvil,
  createTestDatabase,
  eventually,
  type RpcProxy,
  runWalletdAsync,
  startAnvil,
  startRpcProxy,
  startTestApp,
  type TestDatabase,
  testFollower,
} from '@walletd/test-harness';

/**
 * A node whose chain cannot be indexed on top of what was recorded stops that chain: an error
 * naming the cause, the `walletd_chain_halted` metric, `/readyz` not ready, and a back-off, never
 * a rewind loop (issue 10: a restored devnet whose block 0 was not block 1's parent made the
 * follower rewind to block 0 about 230 times a second).
 */
describe('chains the indexer stops', () => {
  let t: TestDatabase;
  let pool: DetectPool;
  const key = { chain: 'ethereum', network: 'devnet' };
  const cleanup: (() => Promise<unknown>)[] = [];

  beforeEach(async () => {
    t = await createTestDatabase();
    pool = createDetectPool(1);
  });
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
    await pool.close();
    await t.drop();
  });

  const anvil = async (args: string[] = []): Promise<Anvil> => {
    const a = await startAnvil(args);
    cleanup.push(() => a.stop());
    return a;
  };
  const settings = (rpcUrl: string): ChainSettings => ({ ...key, rpcUrl, startBlock: 0, confirmations: 1, pollIntervalMs: 50 });

  /** The indexer as `walletd serve` runs it, with a back-off far longer than the test. */
  function indexer(rpcUrl: string, metrics: Metrics, haltBackoffMs = 600_000): Indexer {
    const ix = createIndexer({
      db: t.db,
      logger: createLogger({ level: 'silent' }),
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
  const halted = () =>
    eventually(
      () => t.db('followed_chains').where(key).first(),
      (row) => row?.halted_at != null,
    );
  const metricValue = async (metrics: Metrics, name: string, labels: Record<string, string>) => {
    const metric = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === name);
    const value = metric?.values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l));
    // A counter never incremented for these labels has no sample yet.
    return value?.value ?? 0;
  };
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

  it('a node serving another chain (another genesis) stops the chain with genesis_changed and keeps the indexed cursor; `walletd indexer forget` starts it over', async () => {
    const first = await anvil();
    await first.mine(2);
    const f = testFollower(t.db, pool, settings(first.url));
    await f.tick();
    const cursor = await t.db('chain_cursors').where(key).first('height', 'hash');
    expect(Number(cursor.height)).toBe(2);

    // The node is replaced by a fresh one (a devnet whose state was lost): a longer, unrelated chain.
    // Its own genesis time: two anvils started within the same second share block 0.
    const second = await anvil(['--timestamp', '1000000']);
    await second.mine(5);
    const metrics = createMetrics();
    const stopped = indexer(second.url, metrics);
    const row = await halted();
    expect(row).toMatchObject({ halted_code: 'genesis_changed' });
    const genesis = async (a: Anvil) => (await a.rpc<{ hash: string }>('eth_getBlockByNumber', ['0x0', false])).hash;
    expect(row.halted_message).toContain(await genesis(first));
    expect(row.halted_message).toContain(await genesis(second));
    expect(await metricValue(metrics, 'walletd_chain_halted', { ...key, reason: 'genesis_changed' })).toBe(1);
    // Nothing of the other chain was written over the indexed one.
    expect(await t.db('chain_cursors').where(key).first('height', 'hash')).toEqual(cursor);
    expect(await metricValue(metrics, 'walletd_reorgs_total', key)).toBe(0);

    const ready = await readyz(second.url);
    expect(ready.status).toBe(503);
    expect(ready.body.message).toContain('ethereum/devnet: genesis_changed');
    expect(ready.body.chains?.[0]?.halted?.message).toContain('genesis_changed');

    // The replacement was on purpose: the operator forgets the old chain and the indexer starts over.
    await stopped.stop();
    const forget = await runWalletdAsync(['indexer', 'forget', '--chain', 'ethereum', '--network', 'devnet'], {
      DATABASE_URL: t.url,
      WALLETD_MASTER_KEY: randomBytes(32).toString('hex'),
      WALLETD_DATA_DIR: mkdtempSync(join(tmpdir(), 'walletd-forget-')),
    });
    expect(forget.status).toBe(0);
    expect(forget.json).toEqual({ chain: 'ethereum', network: 'devnet', detached: 0, confirmed: 0 });
    indexer(second.url, createMetrics(), 50);
    const head = Number(await second.head());
    const resumed = await eventually(
      async () => ({
        identity: await t.db('followed_chains').where(key).first('genesis_hash', 'halted_at'),
        cursor: await t.db('chain_cursors').where(key).first('height'),
      }),
      (v) => Number(v.cursor?.height) === head,
    );
    expect(resumed.identity).toEqual({ genesis_hash: await genesis(second), halted_at: null });
    expect((await readyz(second.url)).status).toBe(200);
  });

  it('a node with the same block 0 but another chain id stops the chain with chain_id_changed', async () => {
    // anvil's block 0 does not depend on the chain id: same genesis time, two networks.
    const first = await anvil(['--timestamp', '2000000', '--chain-id', '31337']);
    const f = testFollower(t.db, pool, settings(first.url));
    await f.tick();
    await first.stop();
    cleanup.pop();
    const second = await anvil(['--timestamp', '2000000', '--chain-id', '4242']);
    const metrics = createMetrics();
    indexer(second.url, metrics);
    const row = await halted();
    expect(row).toMatchObject({ halted_code: 'chain_id_changed', chain_id: '31337' });
    expect(row.halted_message).toContain('the node reports chain id 4242, the indexed chain');
    expect(await metricValue(metrics, 'walletd_chain_halted', { ...key, reason: 'chain_id_changed' })).toBe(1);
  });

  it('a node whose blocks do not link stops after three rewinds in place with blocks_do_not_link instead of rewinding forever', async () => {
    const node = await anvil();
    await node.mine(3);
    // Block 0 reported with a hash that is not block 1's parent: what the restored devnet served.
    const fakeGenesis = `0x${'ab'.repeat(32)}`;
    const proxy: RpcProxy = await startRpcProxy(node.url, (call, reply) => {
      const block = reply.result as { hash?: string } | null | undefined;
      if (call.method === 'eth_getBlockByNumber' && call.params?.[0] === '0x0' && block?.hash) block.hash = fakeGenesis;
    });
    cleanup.push(() => proxy.close());

    const metrics = createMetrics();
    indexer(proxy.url, metrics);
    const row = await halted();
    expect(row).toMatchObject({ halted_code: 'blocks_do_not_link', genesis_hash: fakeGenesis });
    expect(row.halted_message).toContain(`its block 0 is ${fakeGenesis}`);
    expect(await metricValue(metrics, 'walletd_chain_halted', { ...key, reason: 'blocks_do_not_link' })).toBe(1);
    const ready = await readyz(proxy.url);
    expect(ready.status).toBe(503);
    expect(ready.body.chains?.map((h) => h.reason)).toEqual(['blocks_do_not_link']);
    // Three rewinds to the claimed ancestor 0 (a busy chain may reorganise twice), then the stop;
    // the back-off holds the next try.
    expect(await metricValue(metrics, 'walletd_reorgs_total', key)).toBe(3);
    expect(Number((await t.db('chain_cursors').where(key).first('height')).height)).toBe(0);
  });
});
