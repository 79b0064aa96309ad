import { createLogger } from '@walletd/core';
import { type HistoryReadsPool, openHistoryReads } from '@walletd/server';
import {
  call,
  createTestDatabase,
  eventually,
  seedCompany,
  seedWatchedAddress,
  startTestApp,
  type TestApp,
  type TestDatabase,
  testConfig,
} from '@walletd/test-harness';
import pg from 'pg';

/**
 * Issue 34: `GET /v1/transactions` cost ~300 µs of walletd CPU more than its read because every
 * history read ran in a knex transaction (BEGIN READ ONLY, SET LOCAL statement_timeout, the read,
 * COMMIT). The reads pool of `serve` (openHistoryReads) now starts its connections with the
 * timeout and read-only mode, and a list is its own statement; `database.readLimitsAtConnect: false`
 * keeps the transaction for PgBouncer. Either way the read is bounded and read only.
 */
let t: TestDatabase;
let key: string;
let observer: pg.Client;
const pools: HistoryReadsPool[] = [];
const apps: TestApp[] = [];
const holders: pg.Client[] = [];

beforeAll(async () => {
  t = await createTestDatabase();
  ({ rootKey: key } = await seedCompany(t.db));
  const seeded = await t.db('companies').first('id');
  await seedWatchedAddress(t.db, seeded.id, '0x00000000000000000000000000000000000000ab');
  observer = new pg.Client({ connectionString: t.url });
  await observer.connect();
});

// Each test's pool is closed after it: the sessions seen in pg_stat_activity are its own.
afterEach(async () => {
  for (const h of holders.splice(0)) await h.end().catch(() => undefined);
  for (const a of apps.splice(0)) await a.close();
  for (const p of pools.splice(0)) await p.destroy();
});

afterAll(async () => {
  await observer.end();
  await t.drop();
});

/** The app as `serve` wires it (runtime.ts: openHistoryReads). */
async function served(database: Record<string, unknown>): Promise<{ app: TestApp; history: HistoryReadsPool }> {
  const over = { database };
  const history = openHistoryReads(testConfig(over), t.url, t.db, createLogger({ level: 'silent' }));
  pools.push(history);
  const app = await startTestApp(t.db, over, undefined, undefined, { reads: history.reads });
  apps.push(app);
  return { app, history };
}

/** The last statement of each idle connection of the reads pool, as PostgreSQL saw it. */
async function readsPoolLastStatements(): Promise<string[]> {
  const { rows } = await observer.query(
    `select query from pg_stat_activity
      where datname = current_database() and application_name like 'walletd-reads:%' and state = 'idle'`,
  );
  return rows.map((r) => String(r.query).trim().toLowerCase());
}

async function lockTransfers(): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: t.url });
  await c.connect();
  holders.push(c);
  await c.query('begin');
  await c.query('lock table transfers in access exclusive mode');
  return c;
}

test('a transaction list on the reads pool is one statement: no BEGIN, SET LOCAL or COMMIT around it', async () => {
  const { app } = await served({ readPoolMax: 1 });
  const res = await call(app.url, 'GET', '/v1/transactions?limit=5', { key });
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ transactions: [], next: null });
  // The pool's one connection: its last statement is the list itself (with the transaction, a
  // COMMIT); the page runs on its generic plan, the mode left set for the next page (issue 32).
  const last = await eventually(readsPoolLastStatements, (qs) => qs.length === 1);
  expect(last[0]).toMatch(/^select \* from \(/);
  expect((await call(app.url, 'GET', '/v1/transactions?limit=5', { key })).status).toBe(200);
  expect((await eventually(readsPoolLastStatements, (qs) => qs.length === 1))[0]).toMatch(/^select \* from \(/);
  // A search runs planned for its value: the list is the last statement itself.
  expect((await call(app.url, 'GET', `/v1/transactions?search=0x${'ab'.repeat(32)}`, { key })).status).toBe(200);
  expect((await eventually(readsPoolLastStatements, (qs) => qs.length === 1))[0]).toMatch(/^select \* from \(/);
});

test('the connection-level limits hold: the pool is read only and a read past readTimeoutMs answers 503', async () => {
  // Read only, asked of a pool with room to answer: under a loaded run a 200 ms bound could end the
  // statement first (a timeout, not the refusal this checks; seen in a full run).
  const roomy = await served({ readPoolMax: 1, readTimeoutMs: 10_000 });
  await expect(roomy.history.reads.run((db) => db.raw('create table must_not_exist (x int)'))).rejects.toMatchObject({ code: '25006' });
  const { app } = await served({ readPoolMax: 1, readTimeoutMs: 200 });
  const holder = await lockTransfers();
  const res = await call(app.url, 'GET', '/v1/transactions', { key });
  expect(res.status).toBe(503);
  expect(res.body.message).toBe('The read was stopped after 200 ms (database.readTimeoutMs); narrow it (walletId, search) or retry later');
  await holder.query('commit');
  expect((await call(app.url, 'GET', '/v1/transactions', { key })).status).toBe(200);
});

test('database.readLimitsAtConnect false (PgBouncer): each read in its own read-only transaction, still bounded', async () => {
  const { app } = await served({ readPoolMax: 1, readTimeoutMs: 200, readLimitsAtConnect: false });
  expect((await call(app.url, 'GET', '/v1/transactions', { key })).status).toBe(200);
  expect(await eventually(readsPoolLastStatements, (qs) => qs.length === 1)).toEqual(['commit;']);
  // Read only, on a pool of the same mode with room to answer (as above: not a timeout under load).
  const roomy = await served({ readPoolMax: 1, readTimeoutMs: 10_000, readLimitsAtConnect: false });
  await expect(roomy.history.reads.run((db) => db.raw('create table must_not_exist (x int)'))).rejects.toMatchObject({ code: '25006' });
  const holder = await lockTransfers();
  expect((await call(app.url, 'GET', '/v1/transactions', { key })).status).toBe(503);
  await holder.query('commit');
});
