/**
 * `npm run bench -- scale`: the cost of each read and each per-round indexer query as the history
 * grows (issue 32). One throw-away embedded PostgreSQL; one company, 10 wallets; the history seeded
 * in steps (10k, 100k, 1M transfers; 10M with BENCH_SCALE_10M=1; BENCH_SCALE_SIZES=10000,100000 to
 * choose) by the SQL the test harness seeds with (test/src/harness/historySeed.js: the rows the
 * indexer, recordEvent and the dispatcher write), ANALYZE and a CHECKPOINT after each step, then
 * each statement BENCH_RUNS times (default 30) with the parameters the code sends: p50 and p99 per
 * size.
 * Statements that write (rejection of detached transfers, a rewind, a replay) run in a transaction
 * rolled back. Timings only: nothing is asserted.
 * BENCH_SCALE_ARCHIVE=1: at the end, the longest list read while archive-month detaches January
 * 2025 (archiveReadWait.js).
 */
const { mkdtempSync, rmSync } = require('node:fs');
const os = require('node:os');
const { join } = require('node:path');
const { createDb, createLogger, ensureMonthPartitions, migrateLatest, startEmbeddedPostgres } = require('@walletd/core');
const { createCompany, loadPlugins } = require('@walletd/server');
const { seedHistory, seedHistoryScope, historyTime } = require('../../test/src/harness/historySeed');
const { archiveLine, archiveReadWait } = require('./archiveReadWait');
const { claimBetweenVacuums } = require('./claimBetweenVacuums');
const { replayRuns } = require('./replayRuns');
const { statements } = require('./statements');
const { freePort } = require('../freePort');

const RUNS = Number(process.env.BENCH_RUNS ?? 30);

function sizes() {
  if (process.env.BENCH_SCALE_SIZES) return process.env.BENCH_SCALE_SIZES.split(',').map(Number);
  return [10_000, 100_000, 1_000_000, ...(process.env.BENCH_SCALE_10M === '1' ? [10_000_000] : [])];
}

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

/** BENCH_SCALE_EACH=<part of a name>[,<part>…]: each timed run's ms of those statements, in order. */
const each = (process.env.BENCH_SCALE_EACH ?? '').split(',').filter((part) => part !== '');

async function timeOne(db, st) {
  const c = await db.client.acquireConnection();
  const ms = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      if (st.writes) await c.query('begin');
      const t0 = performance.now();
      // A statement the code runs by name (runPrepared) runs by name here too: PostgreSQL plans it
      // afresh five times, then may keep a generic plan for the connection, as in production; one
      // runPrepared runs on its generic plan is timed with the setting's two round trips.
      if (st.genericPlan) await c.query('set plan_cache_mode = force_generic_plan');
      await c.query({ ...(st.prepared ? { name: st.prepared } : {}), text: st.sql, values: st.values });
      if (st.genericPlan) await c.query('reset plan_cache_mode');
      ms.push(performance.now() - t0);
      if (st.writes) await c.query('rollback');
    }
  } finally {
    await db.client.releaseConnection(c);
  }
  if (each.some((part) => st.name.includes(part))) console.log(`    each run (ms): ${ms.map((x) => x.toFixed(1)).join(' ')}`);
  return { p50: pct(ms, 50), p99: pct(ms, 99) };
}

/** BENCH_SCALE_EXPLAIN=<part of a name>[,<part>…]: those statements' EXPLAIN (ANALYZE, BUFFERS), rolled back. */
const explained = (process.env.BENCH_SCALE_EXPLAIN ?? '').split(',').filter((part) => part !== '');

async function explain(db, st) {
  const c = await db.client.acquireConnection();
  try {
    await c.query('begin');
    // A statement run on its generic plan: that plan (EXECUTE of the prepared name, literals cast
    // to its parameters' types), not one made for these values.
    const literal = (v) => `'${(Array.isArray(v) ? `{${v.join(',')}}` : String(v)).replace(/'/g, "''")}'`;
    if (st.genericPlan) {
      await c.query({ name: st.prepared, text: st.sql, values: st.values });
      await c.query('set local plan_cache_mode = force_generic_plan');
    }
    const text = st.genericPlan ? `execute ${st.prepared}(${st.values.map(literal).join(', ')})` : st.sql;
    const { rows } = await c.query({ text: `explain (analyze, buffers) ${text}`, values: st.genericPlan ? [] : st.values });
    console.log(rows.map((r) => `    ${r['QUERY PLAN']}`).join('\n'));
  } finally {
    await c.query('rollback');
    await db.client.releaseConnection(c);
  }
}

const claimLine = ({ before: b, after: a }) =>
  `first ${b.first.toFixed(2)} ms, then p50 ${b.p50.toFixed(2)} / p99 ${b.p99.toFixed(2)} ms; after a VACUUM: first ${a.first.toFixed(2)}, p50 ${a.p50.toFixed(2)} / p99 ${a.p99.toFixed(2)} ms`;

async function main() {
  const dataDir = mkdtempSync(join(os.tmpdir(), 'walletd-bench-scale-pg-'));
  const logger = createLogger({ level: 'warn' });
  const pg = await startEmbeddedPostgres({ dataDir, port: await freePort(), logger, database: 'walletd_bench' });
  const results = new Map();
  const claims = new Map();
  const ran = [];
  let archived;
  try {
    const db = createDb({ url: pg.url, poolMax: 4 });
    await migrateLatest(db);
    const company = await createCompany(db, { name: 'Scale', plan: 'paid' });
    const scope = await seedHistoryScope(db, { companyId: company.id });
    // The seeded history starts in January 2025: its months, as the migration of a database that old makes them.
    for (const table of ['transfers', 'events']) await ensureMonthPartitions(db, table, { from: new Date('2025-01-01') });
    // The chain table moved to the plugins (core no longer exports nativeAsset).
    const asset = loadPlugins().chainTable().nativeAsset('ethereum', 'devnet');
    let from = 0;
    for (const size of sizes()) {
      const t0 = performance.now();
      await seedHistory(db, scope, { from, to: size, assetKey: asset.key });
      await db.raw('vacuum analyze');
      // The seed and its vacuum leave GBs of dirty pages (1M: 4 GB; data checksums log hint bits):
      // flushed now, so the timings below do not share the disk with their write-back.
      await db.raw('checkpoint');
      const seeded = (performance.now() - t0) / 1000;
      from = size;
      const { rows } = await db.raw(`select pg_size_pretty(pg_database_size(current_database())) as size`);
      console.log(`${size} transfers: seeded and analyzed in ${seeded.toFixed(1)} s, database ${rows[0].size}`);
      ran.push({ size, seeded, bytes: rows[0].size });
      for (const st of await statements(db, scope, { size, asset, historyTime })) {
        const r = await timeOne(db, st);
        if (!results.has(st.name)) results.set(st.name, new Map());
        results.get(st.name).set(size, r);
        console.log(`  ${st.name.padEnd(36)} p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms`);
        if (explained.some((part) => st.name.includes(part))) await explain(db, st);
        if (process.env.BENCH_SCALE_REPLAY_RUNS === '1' && st.name.includes('replay')) await replayRuns(db, st, RUNS, size);
      }
      if (process.env.BENCH_SCALE_CLAIM !== '0') {
        const c = await claimBetweenVacuums(db, scope, { runs: RUNS });
        claims.set(size, c);
        for (const [name, x] of Object.entries(c))
          console.log(`  dispatcher claim, ${x.dead} rows delivered since the last vacuum (${name}): ${claimLine(x)}`);
      }
    }
    if (process.env.BENCH_SCALE_ARCHIVE === '1') {
      archived = await archiveReadWait(pg.url, scope);
      console.log(`  ${archiveLine(archived)}`);
    }
    await db.destroy();
  } finally {
    await pg.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const header = `| query | ${ran.map((r) => `${r.size.toLocaleString('en')} p50 / p99 ms`).join(' | ')} |`;
  console.log(`\n${header}\n|---|${ran.map(() => '--:|').join('')}`);
  for (const [name, bySize] of results)
    console.log(
      `| ${name} | ${ran
        .map((r) => {
          const x = bySize.get(r.size);
          return x ? `${x.p50.toFixed(2)} / ${x.p99.toFixed(2)}` : '-';
        })
        .join(' | ')} |`,
    );
  if (claims.size > 0) {
    console.log('\n| dispatcher claim | autovacuum after | first ms | then p50 / p99 ms | after VACUUM: first, p50 / p99 ms |');
    console.log('|---|--:|--:|--:|--:|');
    for (const [size, c] of claims)
      for (const [name, x] of Object.entries(c))
        console.log(
          `| ${size.toLocaleString('en')} transfers, ${name} | ${x.dead.toLocaleString('en')} rows | ${x.before.first.toFixed(2)} | ${x.before.p50.toFixed(2)} / ${x.before.p99.toFixed(2)} | ${x.after.first.toFixed(2)}, ${x.after.p50.toFixed(2)} / ${x.after.p99.toFixed(2)} |`,
        );
  }
  if (archived) console.log(`\nAt ${ran.at(-1).size.toLocaleString('en')} transfers, ${archiveLine(archived)}.`);
  return 0;
}

module.exports = { main };
