import { boundedReads, createDb, type Db } from '@walletd/core';
import {
  call,
  createTestDatabase,
  eventually,
  seedCompany,
  seedWatchedAddress,
  startTestApp,
  type CallResult,
  type TestApp,
  type TestDatabase,
} from '@walletd/test-harness';
import pg from 'pg';

/**
 * Issue 32: ten slow transaction lists held every connection of the one pool and an event-feed
 * request waited 27.5 s behind them. The reads that grow with history now run on their own pool
 * under a statement timeout. The reads here are made slow for real: they are the API's own list
 * and balance queries, blocked behind a lock another session holds on `transfers` (as behind a
 * long migration or a VACUUM FULL), so they stay in PostgreSQL exactly as long as the test wants.
 */
let t: TestDatabase;
let readsDb: Db;
let key: string;
let walletId: number;
let observer: pg.Client;
const apps: TestApp[] = [];
const holders: pg.Client[] = [];

const READ_POOL = 2;

beforeAll(async () => {
  t = await createTestDatabase(); // the main pool: 5 connections
  ({ rootKey: key } = await seedCompany(t.db));
  const seeded = await t.db('companies').first('id');
  walletId = await seedWatchedAddress(t.db, seeded.id, '0x00000000000000000000000000000000000000aa');
  readsDb = createDb({ url: t.url, poolMax: READ_POOL, applicationName: 'walletd-reads:test' });
  observer = new pg.Client({ connectionString: t.url });
  await observer.connect();
});

afterAll(async () => {
  for (const h of holders) await h.end().catch(() => undefined);
  for (const a of apps) await a.close();
  await observer.end();
  await readsDb.destroy();
  await t.drop();
});

/** A session that holds `transfers` locked until it commits: every read of it waits. */
async function lockTransfers(): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: t.url });
  await c.connect();
  holders.push(c);
  await c.query('begin');
  // The history and what balances read (the balance ledger since migration 026): every read of
  // the class waits inside PostgreSQL.
  await c.query('lock table transfers, balance_ledger in access exclusive mode');
  return c;
}

/** Sessions of this database waiting for a lock (the blocked reads), seen from outside any pool. */
async function lockWaiters(): Promise<number> {
  const { rows } = await observer.query(
    `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
  );
  return rows[0].n as number;
}

function track(p: Promise<CallResult>) {
  const t = { settled: false, promise: p };
  void p.finally(() => {
    t.settled = true;
  });
  return t;
}

test('slow history reads hold only their own pool: the event feed answers while they are still running', async () => {
  const app = await startTestApp(t.db, { database: { readTimeoutMs: 600_000 } }, undefined, undefined, {
    reads: boundedReads(readsDb, 600_000),
  });
  apps.push(app);
  const holder = await lockTransfers();
  // More slow reads than the main pool has connections: on one shared pool they took all of it.
  const slow = [
    ...Array.from({ length: 6 }, () => track(call(app.url, 'GET', '/v1/transactions?limit=10', { key }))),
    ...Array.from({ length: 2 }, () => track(call(app.url, 'GET', `/v1/wallets/${walletId}/balances`, { key }))),
  ];
  // The slow reads are in PostgreSQL now, waiting: every connection of the reads pool is held.
  expect(await eventually(lockWaiters, (n) => n >= READ_POOL)).toBeGreaterThanOrEqual(READ_POOL);

  const feed = await call(app.url, 'GET', '/v1/events?limit=10', { key });
  expect(feed.status).toBe(200);
  expect(feed.body.events).toEqual([]);
  // The feed answered while every slow read was still running, and they hold the reads pool only.
  expect(slow.filter((s) => s.settled)).toHaveLength(0);
  expect(await lockWaiters()).toBe(READ_POOL);

  await holder.query('commit');
  const answers = await Promise.all(slow.map((s) => s.promise));
  expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
}, 120_000);

test('a history read past database.readTimeoutMs is cancelled and answers 503 unavailable in the error shape', async () => {
  const app = await startTestApp(t.db, { database: { readTimeoutMs: 200 } }, undefined, undefined, {
    reads: boundedReads(readsDb, 200),
  });
  apps.push(app);
  const holder = await lockTransfers();
  for (const path of ['/v1/transactions', `/v1/wallets/${walletId}/balances`]) {
    const res = await call(app.url, 'GET', path, { key });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(res.body).toEqual({
      statusCode: 503,
      error: 'Service Unavailable',
      code: 'unavailable',
      message: 'The read was stopped after 200 ms (database.readTimeoutMs); narrow it (walletId, search) or retry later',
    });
  }
  // PostgreSQL cancelled them: nothing is left waiting, the connections are free again.
  expect(await lockWaiters()).toBe(0);
  await holder.query('commit');
  expect((await call(app.url, 'GET', '/v1/transactions', { key })).status).toBe(200);
});
