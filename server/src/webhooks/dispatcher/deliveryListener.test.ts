import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { createLogger, MasterKey } from '@walletd/core';
import {
  call,
  createTestDatabase,
  eventually,
  recordDeposit,
  seedCompany,
  startReceiver,
  startTestApp,
  testConfig,
  type TestApp,
  type TestDatabase,
  type TestReceiver,
} from '@walletd/test-harness';
import { loadPlugins } from '../../platform/plugins';
import { createDispatcher, type Dispatcher } from './dispatcher';

/**
 * Issue 29: after PostgreSQL restarted, the dispatcher logged "LISTEN connection lost; polling
 * only" and never listened again. Here the LISTEN backend is terminated from another connection
 * (what a restart does to it); the dispatcher must open a new one, say so once, and be woken by
 * the next delivery's notification. The poll interval is a minute, longer than the test waits:
 * a delivery that arrives was announced by a notification.
 */
let t: TestDatabase;
let app: TestApp;
let rx: TestReceiver;
let dispatcher: Dispatcher;
const lines: { msg: string }[] = [];
const masterKey = new MasterKey(randomBytes(32));

const listenBackends = async (): Promise<number[]> =>
  (
    await t.db.raw(
      `select pid from pg_stat_activity where datname = current_database() and query like 'LISTEN %' and pid <> pg_backend_pid() order by pid`,
    )
  ).rows.map((r: { pid: number }) => r.pid);

beforeAll(async () => {
  t = await createTestDatabase();
  app = await startTestApp(t.db, { webhooks: { allowCidrs: ['127.0.0.0/8'] } }, masterKey);
  rx = await startReceiver();
  const destination = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const config = testConfig({ webhooks: { allowCidrs: ['127.0.0.0/8'], pollIntervalMs: 60_000 } });
  dispatcher = createDispatcher({
    config,
    logger: createLogger({ level: 'info', destination }),
    db: t.db,
    masterKey,
    plugins: loadPlugins(),
  });
});
afterAll(async () => {
  await dispatcher.stop();
  await rx.close();
  await app.close();
  await t.drop();
});

it('opens the LISTEN connection again after it was terminated, and a new delivery wakes the dispatcher through it', async () => {
  const s = await seedCompany(t.db);
  const walletId = (
    await call(app.url, 'POST', '/v1/wallets', { key: s.rootKey, body: { name: 'w', chain: 'ethereum', network: 'sepolia' } })
  ).body.id;
  await call(app.url, 'POST', '/v1/webhooks', { key: s.rootKey, body: { type: 'api', config: { url: `${rx.url}/hook` }, events: ['*'] } });
  const said = (msg: string) => lines.filter((l) => l.msg === msg).length;

  dispatcher.start();
  const first = await eventually(listenBackends, (pids) => pids.length === 1);
  expect(first).toHaveLength(1);
  // Listening works: an event is delivered at once, long before the next poll.
  await recordDeposit(t.db, s.companyId, walletId);
  await rx.waitForRequests(1);

  await t.db.raw('select pg_terminate_backend(?)', [first[0] as number]);
  const again = await eventually(
    async () => said('listening again for new deliveries'),
    (n) => n === 1,
  );
  expect(again).toBe(1);
  expect(said('LISTEN connection lost; polling until it is back')).toBe(1);
  const second = await listenBackends();
  expect(second).toHaveLength(1);
  expect(second[0]).not.toBe(first[0]);

  // The dispatcher is idle again (its one wake-up on reconnecting found nothing); the next event
  // reaches the receiver only if its notification wakes the dispatcher.
  await recordDeposit(t.db, s.companyId, walletId);
  await rx.waitForRequests(2);
  expect(rx.requests).toHaveLength(2);
});
