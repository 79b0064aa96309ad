import { Writable } from 'node:stream';
import { type ChainSettings, createLogger, createMetrics, type Metrics, registerPlugins } from '@walletd/core';
import { createIndexer, type Indexer } from '@walletd/indexer';
import { createEvmPlugin } from '@walletd/plugin-evm';
import {
  type Anvil,
  type RpcProxy,
  createTestDatabase,
  eventually,
  freePort,
  startAnvil,
  startRpcProxy,
  type TestDatabase,
} from '@walletd/test-harness';

type Line = { level: number; msg: string; stack?: unknown; err?: unknown; failedRounds?: number; downMs?: number; kind?: string };

/**
 * A real indexer whose node is down for several rounds, then back (a pass-through to anvil started
 * on the port it was configured with). It logged two level-50 lines with a stack per round, per
 * chain; now the outage is one line with its cause, the recovery one line with its length, and
 * every failed round is counted in walletd_node_errors_total.
 */
describe('a node outage in the indexer log', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  let port: number;
  let proxy: RpcProxy | undefined;
  let indexer: Indexer;
  let metrics: Metrics;
  const logs: string[] = [];
  const lines = () => logs.map((l) => JSON.parse(l) as Line);
  const failedRounds = async () =>
    (await metrics.nodeErrors.get()).values.filter((v) => v.labels.chain === 'ethereum').reduce((sum, v) => sum + v.value, 0);

  beforeAll(async () => {
    t = await createTestDatabase();
    anvil = await startAnvil();
    port = await freePort();
    // No retries inside a call: each round is one refused connection per loop.
    const chains: ChainSettings[] = [
      { chain: 'ethereum', network: 'devnet', rpcUrl: `http://127.0.0.1:${port}`, pollIntervalMs: 50, rpcRetries: 0 },
    ];
    const destination = new Writable({
      write(chunk, _enc, cb) {
        logs.push(String(chunk));
        cb();
      },
    });
    metrics = createMetrics();
    indexer = createIndexer({
      db: t.db,
      logger: createLogger({ level: 'info', destination }),
      registry: registerPlugins([createEvmPlugin()]),
      chains,
      threads: 1,
      metrics,
    });
    indexer.start();
  });
  afterAll(async () => {
    await indexer.stop();
    await proxy?.close();
    await anvil.stop();
    await t.drop();
  });

  it('logs the outage once with its cause, counts the failed rounds, and logs the recovery once', async () => {
    expect(await eventually(failedRounds, (n) => n >= 5)).toBeGreaterThanOrEqual(5);
    const down = lines().filter((l) => l.level >= 40);
    expect(down).toHaveLength(1);
    expect(down[0]).toMatchObject({ level: 50, kind: 'unreachable' });
    expect(down[0]?.msg).toMatch(/^ethereum\/devnet node unreachable: \w+ failed: connect ECONNREFUSED .*; retrying with back-off$/);
    // The node's state, not a bug: no stack, no error object.
    expect(down[0]?.stack).toBeUndefined();
    expect(down[0]?.err).toBeUndefined();
    expect((await metrics.nodeErrors.get()).values).toEqual([
      expect.objectContaining({ labels: { chain: 'ethereum', network: 'devnet', kind: 'unreachable' } }),
    ]);

    proxy = await startRpcProxy(anvil.url, { port });
    const recovered = await eventually(
      async () => lines().filter((l) => l.msg.includes('node answers again')),
      (found) => found.length > 0,
    );
    expect(recovered).toHaveLength(1);
    const total = await failedRounds();
    expect(recovered[0]).toMatchObject({ level: 40, failedRounds: total });
    expect(recovered[0]?.msg).toBe(
      `ethereum/devnet node answers again after ${Math.round((recovered[0]?.downMs ?? -1) / 1000)} s; ${total} rounds failed`,
    );
    // Followed again: the indexed height reaches anvil's head, and nothing more was logged above info.
    await eventually(
      () => t.db('chain_cursors').where({ chain: 'ethereum', network: 'devnet' }).first(),
      (c) => c !== undefined,
    );
    expect(lines().filter((l) => l.level >= 40)).toHaveLength(2);
  });
});
