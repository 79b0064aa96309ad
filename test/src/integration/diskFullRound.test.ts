import { Writable } from 'node:stream';
import { type ChainSettings, createLogger, registerPlugins } from '@walletd/core';
import { createIndexer, type Indexer } from '@walletd/indexer';
import { createEvmPlugin } from '@walletd/plugin-evm';
import {
  type Anvil,
  call,
  createTestDatabase,
  eventually,
  startAnvil,
  startTestApp,
  type TestApp,
  type TestDatabase,
} from '@walletd/test-harness';

/**
 * A real indexer following a real anvil whose writes PostgreSQL refuses with its own disk_full
 * error (53100, raised by a trigger on the cursor every round writes): the log says "disk full on
 * <path>" in one line, not the failed statement, and `/readyz` gives the chain reason disk_full.
 */
describe('an indexer round that fails on a full database disk', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  let app: TestApp;
  let indexer: Indexer;
  const logs: string[] = [];

  beforeAll(async () => {
    t = await createTestDatabase();
    anvil = await startAnvil();
    await t.db.raw(`
      create function walletd_test_disk_full() returns trigger language plpgsql as $$
      begin
        raise exception using errcode = 'disk_full', message = 'could not extend file "base/16384/16400": No space left on device';
      end $$;
      create trigger walletd_test_disk_full before insert or update on chain_cursors
        for each row execute function walletd_test_disk_full();
    `);
    const chains: ChainSettings[] = [{ chain: 'ethereum', network: 'devnet', rpcUrl: anvil.url, pollIntervalMs: 100 }];
    const destination = new Writable({
      write(chunk, _enc, cb) {
        logs.push(String(chunk));
        cb();
      },
    });
    indexer = createIndexer({
      db: t.db,
      logger: createLogger({ level: 'info', destination }),
      registry: registerPlugins([createEvmPlugin()]),
      chains,
      threads: 1,
      databaseDir: '/var/lib/walletd/pg',
    });
    app = await startTestApp(t.db, { chains });
    indexer.start();
  });
  afterAll(async () => {
    await app.close();
    await indexer.stop();
    await anvil.stop();
    await t.drop();
  });

  it('logs "disk full on <path>" without the SQL and /readyz says disk_full', async () => {
    // New blocks: the round that indexes them writes the cursor, which the server refuses.
    await anvil.mine(2);
    const ready = await eventually(
      () => call(app.url, 'GET', '/readyz'),
      (r) => r.status === 503 && (r.body as { chains?: { reason?: string }[] }).chains?.[0]?.reason !== 'not_indexed',
    );
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({
      message: 'not ready: ethereum/devnet: disk_full',
      chains: [{ chain: 'ethereum', network: 'devnet', ready: false, reason: 'disk_full' }],
    });
    const failed = logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => String(l.msg).includes('follow round failed'));
    expect(failed.length).toBeGreaterThan(0);
    for (const line of failed) {
      expect(line).toMatchObject({ msg: 'disk full on /var/lib/walletd/pg: follow round failed; retrying', reason: 'disk_full' });
      expect(JSON.stringify(line)).not.toMatch(/insert into|chain_cursors/);
    }
  });
});
