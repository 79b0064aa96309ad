import { createDb, createLogger, type Db, migrateLatest } from '@walletd/core';
import { type HistoryReadsPool, openHistoryReads } from '@walletd/server';
import {
  type DedicatedPostgres,
  type StreamingReplica,
  type TestApp,
  call,
  creditAddress,
  eventually,
  nativeAsset,
  recordDeposit,
  seedCompany,
  seedWatchedAddress,
  startDedicatedPostgres,
  startStreamingReplica,
  startTestApp,
  testConfig,
} from '@walletd/test-harness';
import pg from 'pg';

/**
 * Issue 32, "past one machine": `database.replicaUrl` points the API's history reads (transaction
 * list, balances, the console's transactions and overview) at a streaming replica; everything else
 * stays on the primary. A real hot standby streams from a dedicated primary (same binaries); its
 * replay is paused and resumed (pg_wal_replay_pause) to hold it behind the primary on purpose.
 */
let primary: DedicatedPostgres;
let replica: StreamingReplica;
let db: Db;
let onReplica: pg.Client;
let onPrimary: pg.Client;
let key: string;
let walletId: number;
let companyId: number;
let address: { id: number; address: string };
const pools: HistoryReadsPool[] = [];
const apps: TestApp[] = [];
const asset = nativeAsset('ethereum', 'devnet');

beforeAll(async () => {
  primary = await startDedicatedPostgres();
  db = createDb({ url: primary.url, poolMax: 5 });
  await migrateLatest(db);
  const s = await seedCompany(db);
  key = s.rootKey;
  companyId = s.companyId;
  walletId = await seedWatchedAddress(db, s.companyId, '0x00000000000000000000000000000000000000aa');
  address = await db('addresses').where({ wallet_id: walletId }).first('id', 'address');
  replica = await startStreamingReplica(primary);
  onReplica = new pg.Client({ connectionString: replica.url });
  await onReplica.connect();
  onPrimary = new pg.Client({ connectionString: primary.url });
  await onPrimary.connect();
}, 120_000);

afterAll(async () => {
  for (const a of apps) await a.close();
  for (const p of pools) await p.destroy();
  await onReplica?.query('select pg_wal_replay_resume()').catch(() => undefined);
  await onReplica?.end();
  await onPrimary?.end();
  await db?.destroy();
  await replica?.stop();
  await primary?.stop();
});

/** The app as `serve` wires it (runtime.ts: openHistoryReads), its history reads on the replica. */
async function appOnReplica(replicaMaxLagMs: number): Promise<TestApp> {
  const over = { database: { replicaUrl: replica.url, replicaMaxLagMs } };
  const history = openHistoryReads(testConfig(over), primary.url, db, createLogger({ level: 'silent' }));
  pools.push(history);
  const app = await startTestApp(db, over, undefined, undefined, {
    reads: history.reads,
    ...(history.primaryReads ? { primaryReads: history.primaryReads } : {}),
  });
  apps.push(app);
  return app;
}

const readsSessions = async (c: pg.Client) =>
  Number((await c.query(`select count(*) as n from pg_stat_activity where application_name like 'walletd-reads:%'`)).rows[0].n);

const hashes = (body: { transactions: { txHash: string }[] }) => body.transactions.map((x) => x.txHash);

test('the history reads run on the replica; writes and the other reads on the primary', async () => {
  const app = await appOnReplica(60_000);
  expect((await onReplica.query('select pg_is_in_recovery() as standby')).rows[0].standby).toBe(true);
  expect((await call(app.url, 'GET', '/v1/transactions', { key })).status).toBe(200);
  expect((await call(app.url, 'GET', `/v1/wallets/${walletId}/balances`, { key })).status).toBe(200);
  // The reads pool's connections are the replica's, none the primary's.
  expect(await readsSessions(onReplica)).toBeGreaterThan(0);
  expect(await readsSessions(onPrimary)).toBe(0);

  // With the replica stopped behind the primary, a write still succeeds (the replica refuses
  // every write) and is read back at once by a read of the main pool.
  await onReplica.query('select pg_wal_replay_pause()');
  try {
    const created = await call(app.url, 'POST', '/v1/wallets', { key, body: { name: 'made', chain: 'ethereum', network: 'devnet' } });
    expect(created.status).toBe(201);
    const read = await call(app.url, 'GET', `/v1/wallets/${created.body.id}`, { key });
    expect(read.status).toBe(200);
    expect(read.body.name).toBe('made');
  } finally {
    await onReplica.query('select pg_wal_replay_resume()');
  }
});

test('read-your-writes: a list after a deposit waits for the replica to replay it, then shows it', async () => {
  const app = await appOnReplica(60_000);
  await onReplica.query('select pg_wal_replay_pause()');
  let resumed = false;
  try {
    await creditAddress(db, address, asset.key, 7n);
    const tx = (await db('transfers').where({ address_id: address.id }).orderBy('id', 'desc').first('tx_hash')).tx_hash;
    let settled = false;
    const listed = call(app.url, 'GET', `/v1/transactions?walletId=${walletId}`, { key }).finally(() => {
      settled = true;
    });
    // The read is on the replica, waiting for the primary's commits to be replayed there: its
    // probes of the replay position run on the reads pool (between them the connection is idle:
    // the pool's limits are the connection's settings, no transaction is held open).
    const probes = await eventually(
      async () =>
        Number(
          (
            await onReplica.query(
              `select count(*) as n from pg_stat_activity where application_name like 'walletd-reads:%' and query like '%pg_last_wal_replay_lsn%'`,
            )
          ).rows[0].n,
        ),
      (n) => n > 0,
    );
    expect(probes).toBeGreaterThan(0);
    expect(settled).toBe(false);
    await onReplica.query('select pg_wal_replay_resume()');
    resumed = true;
    const res = await listed;
    expect(res.status).toBe(200);
    expect(hashes(res.body)).toContain(tx);
  } finally {
    if (!resumed) await onReplica.query('select pg_wal_replay_resume()');
  }
});

test('a replica behind by more than database.replicaMaxLagMs answers 503 unavailable, never an older answer', async () => {
  const app = await appOnReplica(200);
  await onReplica.query('select pg_wal_replay_pause()');
  let tx = '';
  try {
    await creditAddress(db, address, asset.key, 9n);
    tx = (await db('transfers').where({ address_id: address.id }).orderBy('id', 'desc').first('tx_hash')).tx_hash;
    const res = await call(app.url, 'GET', `/v1/transactions?walletId=${walletId}`, { key });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(res.body).toMatchObject({
      code: 'unavailable',
      message: "The read replica has not replayed the primary's latest commits within 200 ms (database.replicaMaxLagMs); retry later",
    });
  } finally {
    await onReplica.query('select pg_wal_replay_resume()');
  }
  const res = await eventually(
    () => call(app.url, 'GET', `/v1/transactions?walletId=${walletId}`, { key }),
    (r) => r.status === 200,
  );
  expect(res.status).toBe(200);
  expect(hashes(res.body)).toContain(tx);
});

test('the event feed reads the primary, on a reads pool there: an event shows at once while the replica is paused', async () => {
  const app = await appOnReplica(60_000);
  await onReplica.query('select pg_wal_replay_pause()');
  try {
    const recorded = await recordDeposit(db, companyId, walletId);
    const ids = await eventually(
      async () => (await call(app.url, 'GET', '/v1/events?limit=1000', { key })).body.events.map((e: { id: string }) => e.id) as string[],
      (listed) => listed.includes(recorded.envelope.id),
    );
    expect(ids).toContain(recorded.envelope.id);
    // Not the main pool's connection (walletd:<pid>): the feed's own reads pool on the primary,
    // whose plan mode is set once per connection (historyReadsPool.ts).
    expect(await readsSessions(onPrimary)).toBeGreaterThan(0);
  } finally {
    await onReplica.query('select pg_wal_replay_resume()');
  }
});
