/**
 * `node bench/outbox/pgCounters.js`: what PostgreSQL does per delivered event, in counts that a
 * loaded machine does not change (bench/README.md, outbox). A throw-away embedded cluster, one
 * webhook, BENCH_EVENTS (default 5000) events committed with no dispatcher running, then one
 * dispatcher (in this process, its own pool) drains them into the bench receiver. Printed per
 * delivered event: shared buffers hit or read (pg_stat_database), WAL records and bytes
 * (pg_stat_wal), row updates of webhook_deliveries and how many were HOT (pg_stat_user_tables),
 * and, as a noisy extra, CPU µs of this process and of the cluster. BENCH_EXPLAIN=<file>: one claim of
 * 27 on the full queue first (rolled back), its plans with buffers written to that file
 * (auto_explain, nested statements: the claim function's insides).
 *
 * BENCH_COUNTERS_PACED=<events/s>: paced instead (the outbox bench's paced mode, issue 43 §5):
 * BENCH_RUNNERS (default 1) dispatchers in this process run first, then the events are committed
 * at that rate, one at a time. The per-event figures then include the events' own commits (the
 * same before and after a dispatcher change: compare A/B), and add what a paced round costs in
 * counts: claim and record statements per delivered event, rows per claim, and the claims that
 * took nothing (pg_stat_statements, every statement of the cluster's database).
 */
const { randomBytes } = require('node:crypto');
const { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const os = require('node:os');
const { join } = require('node:path');
const { performance } = require('node:perf_hooks');
const core = require('@walletd/core');
const { DestinationPolicy, addMember, createApiKey, createCompany, createWebhook, createDispatcher } = require('@walletd/server');
const { startReceiver } = require('./receiver');
const { cpuWindow } = require('./cpu');

const N = Number(process.env.BENCH_EVENTS ?? 5000);
const PACED = Number(process.env.BENCH_COUNTERS_PACED ?? 0);
const RUNNERS = Number(process.env.BENCH_RUNNERS ?? 1);
const COUNTERS = `select (select sum(blks_hit + blks_read) from pg_stat_database)::bigint as buffers,
  (select wal_records from pg_stat_wal)::bigint as wal_records, (select wal_bytes from pg_stat_wal)::bigint as wal_bytes,
  (select n_tup_upd from pg_stat_user_tables where relname = 'webhook_deliveries') as updates,
  (select n_tup_hot_upd from pg_stat_user_tables where relname = 'webhook_deliveries') as hot_updates`;

async function seed(db, url) {
  const company = await createCompany(db, { name: 'Counters', plan: 'paid' });
  const owner = await addMember(db, { companyId: company.id, email: 'owner@counters.example', role: 'owner' });
  const { record: key } = await createApiKey(db, {
    companyId: company.id,
    createdBy: owner.id,
    actions: [...core.ALL_ACTIONS],
    walletIds: null,
  });
  const [wallet] = await db('wallets')
    .insert({ company_id: company.id, name: 'w', chain: 'ethereum', network: 'sepolia', secret_envelope: {} })
    .returning('id');
  const masterKey = new core.MasterKey(randomBytes(32));
  const ctx = { db, masterKey, policy: new DestinationPolicy(['127.0.0.0/8']) };
  await createWebhook(ctx, { companyId: company.id, keyId: key.id, walletIds: null }, { type: 'api', config: { url }, events: ['*'] });
  return { companyId: company.id, walletId: wallet.id, masterKey };
}

/** One claim with auto_explain on, rolled back: the plans land in the cluster's log. */
async function explainOneClaim(db, dataDir, file) {
  await db
    .transaction(async (trx) => {
      await trx.raw("load 'auto_explain'");
      for (const s of ['log_min_duration = 0', 'log_analyze = on', 'log_buffers = on', 'log_nested_statements = on'])
        await trx.raw(`set local auto_explain.${s}`);
      await trx.raw("select * from walletd_claim_deliveries(27, 60, 64, null, '{}', 256, null)");
      throw Object.assign(new Error('rollback'), { rollback: true });
    })
    .catch((e) => {
      if (!e.rollback) throw e;
    });
  const logs = readdirSync(dataDir, { recursive: true }).filter((f) => String(f).endsWith('.log'));
  writeFileSync(file, logs.map((f) => readFileSync(join(dataDir, String(f)), 'utf8')).join('\n'));
}

/** Paced: claim and record statements per delivered event (pg_stat_statements, top-level calls). */
async function pacedRounds(db, n, rate) {
  const { rows } = await db.raw(
    `select query, calls, rows from pg_stat_statements
      where query like '%walletd_claim_deliveries(%' or query like 'with v as ( select * from unnest(%'
         or query like 'with v as (%unnest($1::bigint[]%'`,
  );
  const claim = rows.find((r) => r.query.includes('walletd_claim_deliveries('));
  const record = rows.find((r) => !r.query.includes('walletd_claim_deliveries('));
  const claims = Number(claim?.calls ?? 0);
  return (
    `paced ${rate}/s, ${RUNNERS} dispatcher(s): per delivered event ${(claims / n).toFixed(2)} claims ` +
    `(${(Number(claim?.rows ?? 0) / Math.max(1, claims)).toFixed(2)} rows each, the capped-only row included), ` +
    `${(Number(record?.calls ?? 0) / n).toFixed(2)} records`
  );
}

async function main() {
  const dataDir = mkdtempSync(join(os.tmpdir(), 'walletd-counters-'));
  const logger = core.createLogger({ level: 'silent' });
  const port = 20000 + Math.floor(Math.random() * 20000);
  const pg = await core.startEmbeddedPostgres({
    dataDir,
    port,
    logger,
    database: 'walletd_counters',
    ephemeral: true,
    ...(PACED > 0 ? { serverSettings: { shared_preload_libraries: 'pg_stat_statements' } } : {}),
  });
  const db = core.createDb({ url: pg.url, poolMax: 4 });
  const receiver = await startReceiver();
  try {
    await core.migrateLatest(db);
    if (PACED > 0) await db.raw('create extension if not exists pg_stat_statements');
    const s = await seed(db, receiver.url);
    const commit = (i) =>
      db.transaction((trx) =>
        core.recordEvent(trx, {
          type: 'deposit.confirmed',
          chain: 'ethereum',
          network: 'sepolia',
          companyId: s.companyId,
          walletId: s.walletId,
          data: { i },
        }),
      );
    if (PACED === 0) for (let i = 0; i < N; i++) await commit(i);
    if (process.env.BENCH_EXPLAIN) await explainOneClaim(db, dataDir, process.env.BENCH_EXPLAIN);
    const settings = { ...core.DEFAULT_CONFIG.webhooks, allowCidrs: ['127.0.0.0/8'], concurrency: 64, batchSize: 100, pollIntervalMs: 500 };
    // Their own pools: ending them ends their sessions, which flushes their statistics before the reading.
    const pools = [];
    const dispatchers = [];
    for (let k = 0; k < (PACED > 0 ? RUNNERS : 1); k++) {
      const own = core.createDb({ url: pg.url, poolMax: 10 });
      pools.push(own);
      dispatchers.push(
        createDispatcher({ config: { ...core.DEFAULT_CONFIG, webhooks: settings }, logger, db: own, masterKey: s.masterKey }, settings),
      );
    }
    if (PACED > 0) {
      // Listening before the window opens: the first events are not left to a poll.
      for (const d of dispatchers) d.start();
      await new Promise((r) => setTimeout(r, 1000));
      await db.raw('select pg_stat_statements_reset()');
    }
    await db.raw('select pg_stat_force_next_flush()');
    const before = (await db.raw(COUNTERS)).rows[0];
    const cpu = cpuWindow(pg.dataDir);
    const t0 = performance.now();
    if (PACED > 0) {
      for (let i = 0; i < N; i++) {
        const wait = t0 + (i * 1000) / PACED - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        await commit(i);
      }
    } else for (const d of dispatchers) d.start();
    await receiver.waitFor(N, 180_000);
    const seconds = (performance.now() - t0) / 1000;
    for (const d of dispatchers) await d.stop();
    for (const own of pools) await own.destroy();
    const used = cpu.end();
    await new Promise((r) => setTimeout(r, 1000));
    await db.raw('select pg_stat_force_next_flush()');
    const after = (await db.raw(COUNTERS)).rows[0];
    const per = (k) => (Number(after[k]) - Number(before[k])) / N;
    console.log(
      `${N} events delivered in ${seconds.toFixed(2)} s; per delivered event: buffers ${per('buffers').toFixed(1)}, ` +
        `WAL records ${per('wal_records').toFixed(1)}, WAL bytes ${per('wal_bytes').toFixed(0)}, ` +
        `webhook_deliveries updates ${per('updates').toFixed(2)} (HOT ${per('hot_updates').toFixed(2)}); ` +
        `CPU µs (noisy): this process ${((used.self * 1000) / N).toFixed(0)}, PostgreSQL ${((used.pg * 1000) / N).toFixed(0)}`,
    );
    if (PACED > 0) console.log(await pacedRounds(db, N, PACED));
  } finally {
    await receiver.close();
    await db.destroy();
    await pg.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
