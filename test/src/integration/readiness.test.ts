import { type ChainPlugin, type ChainReader, type ChainSettings, createLogger, registerPlugins } from '@walletd/core';
import { createIndexer, type Indexer } from '@walletd/indexer';
import { createEvmPlugin } from '@walletd/plugin-evm';
import {
  type Anvil,
  call,
  type CallResult,
  createTestDatabase,
  eventually,
  startAnvil,
  startTestApp,
  type TestApp,
  type TestDatabase,
} from '@walletd/test-harness';

/**
 * `/readyz` of a real API over the database a real indexer writes, the indexer following a real
 * anvil: ready while it keeps up, not ready past the lag bound, when the node dies, and when the
 * indexer's record goes stale.
 */
describe('readiness follows the indexed chains', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  let app: TestApp;
  let indexer: Indexer;
  let indexerStopped = false;
  let anvilStopped = false;
  // Block fetches wait on this while a test holds it: a catch-up held part-way, lag observable.
  let held: Promise<void> = Promise.resolve();
  // Head reads wait on this while a test holds it: anvil_mine makes its blocks one by one, and a
  // head read part-way (3 of 8, seen under load) left the indexer's round held at that head, so its
  // record aged into `stalled` and never showed the lag.
  let headHeld: Promise<void> = Promise.resolve();

  /** The shipped EVM plugin, its reader's block fetch behind the gate above. */
  function gatedPlugin(): ChainPlugin {
    const evm = createEvmPlugin();
    return {
      ...evm,
      createReader: (chain, network, options) => {
        const reader = evm.createReader(chain, network, options);
        const gated: ChainReader = Object.create(reader);
        gated.head = async () => {
          await headHeld;
          return reader.head();
        };
        gated.fetchBlock = async (height) => {
          await held;
          return reader.fetchBlock(height);
        };
        return gated;
      },
    };
  }

  const readyz = () => call(app.url, 'GET', '/readyz');
  const until = (done: (r: CallResult) => boolean) => eventually(readyz, done);

  beforeAll(async () => {
    t = await createTestDatabase();
    anvil = await startAnvil();
    const chains: ChainSettings[] = [{ chain: 'ethereum', network: 'devnet', rpcUrl: anvil.url, pollIntervalMs: 100 }];
    indexer = createIndexer({
      db: t.db,
      logger: createLogger({ level: 'silent' }),
      registry: registerPlugins([gatedPlugin()]),
      chains,
      threads: 1,
    });
    app = await startTestApp(t.db, { chains, indexer: { threads: 1, maxLagBlocks: 5, healthMaxAgeMs: 60_000 } });
  });
  afterAll(async () => {
    await app.close();
    // The last tests stop the node and the indexer themselves; a failure before them leaves them running.
    if (!indexerStopped) await indexer.stop();
    if (!anvilStopped) await anvil.stop();
    await t.drop();
  });

  it('is not ready before the indexer has reported, then ready once it follows the chain', async () => {
    const before = await readyz();
    expect(before.status).toBe(503);
    expect(before.headers.get('retry-after')).toBe('5');
    expect(before.body).toMatchObject({
      statusCode: 503,
      error: 'Service Unavailable',
      code: 'unavailable',
      chains: [{ chain: 'ethereum', network: 'devnet', ready: false, reason: 'not_indexed' }],
    });

    indexer.start();
    const ready = await until((r) => r.status === 200);
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({
      status: 'ready',
      chains: [{ chain: 'ethereum', network: 'devnet', ready: true, nodeReachable: true, lag: '0' }],
    });
  });

  it('is not ready while the indexed height trails the head by more than maxLagBlocks', async () => {
    let release = () => {};
    held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let releaseHead = () => {};
    headHeld = new Promise<void>((resolve) => {
      releaseHead = resolve;
    });
    const head = await anvil.head();
    let lagging: CallResult;
    try {
      await anvil.mine(8);
      // The indexer reads the head only once all eight blocks are there.
      releaseHead();
      lagging = await until((r) => r.status === 503);
    } finally {
      releaseHead();
      release();
    }
    expect(lagging.body).toMatchObject({
      code: 'unavailable',
      message: 'not ready: ethereum/devnet: lagging',
      chains: [{ ready: false, reason: 'lagging', nodeReachable: true, head: String(head + 8n), indexed: String(head), lag: '8' }],
    });

    const caughtUp = await until((r) => r.status === 200);
    expect(caughtUp.body).toMatchObject({ status: 'ready', chains: [{ ready: true, head: String(head + 8n), lag: '0' }] });
  });

  it('is not ready while the node is unreachable', async () => {
    await anvil.stop();
    anvilStopped = true;
    const down = await until((r) => r.status === 503);
    expect(down.body).toMatchObject({
      code: 'unavailable',
      message: 'not ready: ethereum/devnet: node_unreachable',
      chains: [{ ready: false, reason: 'node_unreachable', nodeReachable: false }],
    });
  });

  it('is not ready when the indexer stopped reporting (its record is older than healthMaxAgeMs)', async () => {
    await indexer.stop();
    indexerStopped = true;
    // The record as a dead indexer leaves it: last written two minutes ago by the database clock.
    await t.db('chain_health').update({ updated_at: t.db.raw(`now() - interval '2 minutes'`) });
    const stale = await readyz();
    expect(stale.status).toBe(503);
    expect(stale.body).toMatchObject({ chains: [{ ready: false, reason: 'stale', ageSeconds: 120 }] });
  });
});
