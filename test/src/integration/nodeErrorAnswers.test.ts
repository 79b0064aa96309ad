import { type ChainSettings, createLogger } from '@walletd/core';
import { createIndexer } from '@walletd/indexer';
import { loadPlugins } from '@walletd/server';
import {
  type Anvil,
  call,
  type CallResult,
  createTestDatabase,
  eventually,
  startAnvil,
  startRpcProxy,
  startTestApp,
  type TestDatabase,
} from '@walletd/test-harness';

/**
 * Issue 43 §6: a node that answers, but with HTTP 500 or junk, is `node_error` in /readyz (it is
 * reachable: the fault is the node's), not `node_unreachable`, which stays for a node that cannot
 * be reached. A real indexer follows anvil through the harness's proxy, which answers in its place.
 */
describe('a node answering errors, as readiness tells it', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  const cleanup: (() => Promise<unknown>)[] = [];
  beforeAll(async () => {
    anvil = await startAnvil();
    t = await createTestDatabase();
  });
  afterAll(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
    await t.drop();
    await anvil.stop();
  });

  it('HTTP 500 and a junk body are node_error with nodeReachable true; a dead node is still node_unreachable', async () => {
    let broken: { status: number; body: string } | undefined;
    const p = await startRpcProxy(anvil.url, { answer: () => broken });
    cleanup.push(() => p.close());
    const settings: ChainSettings = {
      chain: 'ethereum',
      network: 'devnet',
      rpcUrl: p.url,
      startBlock: 0,
      confirmations: 1,
      pollIntervalMs: 100,
      rpcRetries: 0,
    };
    const ix = createIndexer({
      db: t.db,
      logger: createLogger({ level: 'silent' }),
      registry: loadPlugins(),
      chains: [settings],
      threads: 1,
    });
    ix.start();
    cleanup.push(() => ix.stop());
    const app = await startTestApp(t.db, { chains: [settings] });
    cleanup.push(() => app.close());
    const until = (done: (r: CallResult) => boolean) => eventually(() => call(app.url, 'GET', '/readyz'), done);
    expect((await until((r) => r.status === 200)).status).toBe(200);

    broken = { status: 500, body: '<html><body>500 Internal Server Error</body></html>' };
    const five = await until((r) => r.status === 503);
    expect(five.body).toMatchObject({
      message: 'not ready: ethereum/devnet: node_error',
      chains: [{ ready: false, reason: 'node_error', nodeReachable: true }],
    });
    expect((await t.db('chain_health').first('last_error')).last_error).toMatch(/answered HTTP 500/);

    broken = undefined;
    expect((await until((r) => r.status === 200)).status).toBe(200);
    broken = { status: 200, body: 'junk, not JSON' };
    const junk = await until((r) => r.status === 503);
    expect(junk.body).toMatchObject({ chains: [{ ready: false, reason: 'node_error', nodeReachable: true }] });

    broken = undefined;
    expect((await until((r) => r.status === 200)).status).toBe(200);
    await p.close();
    const dead = await until((r) => r.status === 503);
    expect(dead.body).toMatchObject({ chains: [{ ready: false, reason: 'node_unreachable', nodeReachable: false }] });
  });
});
