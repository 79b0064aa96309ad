import { randomBytes } from 'node:crypto';
import { createDb, createLogger, type Db, MasterKey } from '@walletd/core';
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
import type pg from 'pg';
import { loadPlugins } from '../../platform/plugins';
import { listenForDeliveries } from './deliveryListener';
import { createDispatcher } from './dispatcher';

/**
 * Issue 43 §5: every NOTIFY woke every dispatcher, and with two, one claim per event came back
 * empty. One LISTEN session leads (a session advisory lock) and passes notifications on at once;
 * the others pass them on after a short window, so work the leader does not take is still claimed
 * without waiting for the poll; the lead passes on when its session ends.
 */
let t: TestDatabase;
let app: TestApp;
let rx: TestReceiver;
const masterKey = new MasterKey(randomBytes(32));
const logger = createLogger({ level: 'silent' });

beforeAll(async () => {
  t = await createTestDatabase();
  app = await startTestApp(t.db, { webhooks: { allowCidrs: ['127.0.0.0/8'] } }, masterKey);
  rx = await startReceiver();
});
afterAll(async () => {
  await rx.close();
  await app.close();
  await t.drop();
});

const settings = () => t.db.client.connectionSettings as pg.ClientConfig;

it('one listener leads, another follows, is still told, and leads once the first is gone', async () => {
  let toldFirst = 0;
  let toldSecond = 0;
  const first = await listenForDeliveries(settings(), logger, () => toldFirst++);
  const second = await listenForDeliveries(settings(), logger, () => toldSecond++);
  try {
    expect(first.leads()).toBe(true);
    expect(second.leads()).toBe(false);
    await t.db.raw(`select pg_notify('walletd_deliveries', '')`);
    const told = async (): Promise<[number, number]> => [toldFirst, toldSecond];
    expect(await eventually(told, ([a, b]) => a > 0 && b > 0, 10_000)).toEqual([1, 1]);
    await first.close();
    const leads = async () => second.leads();
    expect(await eventually(leads, (lead) => lead, 10_000)).toBe(true);
  } finally {
    await first.close();
    await second.close();
  }
});

it("a follower's dispatcher delivers what a leader that claims nothing leaves, without waiting for its poll", async () => {
  const s = await seedCompany(t.db);
  const walletId = (
    await call(app.url, 'POST', '/v1/wallets', { key: s.rootKey, body: { name: 'w', chain: 'ethereum', network: 'sepolia' } })
  ).body.id;
  await call(app.url, 'POST', '/v1/webhooks', { key: s.rootKey, body: { type: 'api', config: { url: `${rx.url}/hook` }, events: ['*'] } });
  // The lead is held by a session that never claims (what a stuck or saturated leader looks like).
  const holder: Db = createDb({ url: t.url, poolMax: 1 });
  await holder.raw(`select pg_advisory_lock(hashtext('walletd:dispatcher:notify-lead'))`);
  const own = createDb({ url: t.url, poolMax: 2 });
  const dispatcher = createDispatcher({
    // A poll of 10 minutes: only a notification can get the delivery out within this test.
    config: testConfig({ webhooks: { allowCidrs: ['127.0.0.0/8'], pollIntervalMs: 600_000 } }),
    logger,
    db: own,
    masterKey,
    plugins: loadPlugins(),
  });
  try {
    dispatcher.start();
    // Started once it listens: its first claim, before the event, found nothing.
    await eventually(
      async () => Number((await t.db.raw(`select count(*)::int as n from pg_stat_activity where query like 'LISTEN %'`)).rows[0].n),
      (n) => n > 0,
      10_000,
    );
    const envelope = (await recordDeposit(t.db, s.companyId, walletId)).envelope;
    const got = await eventually(
      async () => rx.requests.filter((r) => r.headers['webhook-id'] === envelope.id).length,
      (n) => n > 0,
      30_000,
    );
    expect(got).toBe(1);
  } finally {
    await dispatcher.stop();
    await own.destroy();
    await holder.destroy();
  }
}, 60_000);
