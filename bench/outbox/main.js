/**
 * `npm run bench -- outbox`: walletd's webhook outbox against graphile-worker, on one embedded
 * PostgreSQL, in one run. See bench/README.md for what is measured and the knobs.
 *
 * Process layout: this process runs the producer (commits events) and the receiver (times the
 * POSTs), so commit and arrival times share one performance.now() clock. Each dispatcher (walletd)
 * or runner (graphile-worker) is a child process of its own, as they would be deployed.
 */
const { randomBytes, randomUUID } = require('node:crypto');
const { mkdtempSync, rmSync } = require('node:fs');
const os = require('node:os');
const { execFileSync } = require('node:child_process');
const { join } = require('node:path');
const { performance } = require('node:perf_hooks');
const { ALL_ACTIONS, MasterKey, createDb, createLogger, migrateLatest, recordEvent, startEmbeddedPostgres } = require('@walletd/core');
const { DestinationPolicy, addMember, createApiKey, createCompany, createWebhook } = require('@walletd/server');
const { makeWorkerUtils, Logger } = require('graphile-worker');
const { startReceiver } = require('./receiver');
const { RunnerProcess } = require('./runnerProcess');
const { readSettings } = require('./settings');
const { summarise, fmt, table } = require('./stats');
const { writeResults } = require('./readme');
const { cpuWindow } = require('./cpu');
const { runIsolation, isolationRows, ISOLATION_HEADERS, ISOLATION_ALIGN } = require('./isolation');
const { printStatements } = require('../pgStatements');
const { freePort } = require('../freePort');

const RUNNER_SCRIPTS = {
  walletd: join(__dirname, 'walletdRunner.js'),
  'graphile-worker': join(__dirname, 'graphileRunner.js'),
  'graphile-worker-batched': join(__dirname, 'graphileRunner.js'),
};

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The commit measured, and whether the code under test differs from it (a benchmark of a work tree). */
function sourceState() {
  const root = join(__dirname, '..', '..');
  try {
    const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const head = git('rev-parse', '--short', 'HEAD').trim();
    // Porcelain lines are `XY path`: keep their leading blanks (a trim would eat the status column).
    const dirty = git('status', '--porcelain', '--', 'core/src', 'server/src')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.slice(3))
      .filter((f) => !f.endsWith('.test.ts'));
    if (dirty.length === 0) return head;
    const shown = dirty.slice(0, 6).join(', ');
    return `${head} + uncommitted changes to ${shown}${dirty.length > 6 ? ` and ${dirty.length - 6} more files` : ''}`;
  } catch {
    return 'unknown (no git)';
  }
}

let txCounter = 0;
/** The `data` of a confirmed deposit, as test/src/harness/events.ts records it. */
function depositData() {
  txCounter += 1;
  return {
    chain: 'ethereum',
    network: 'sepolia',
    txHash: `0x${txCounter.toString(16).padStart(64, '0')}`,
    addressId: 1,
    confirmations: 12,
    status: 'confirmed',
    direction: 'incoming',
    amount: '1.5',
    asset: { key: 'ethereum:sepolia:eth', symbol: 'ETH', decimals: 18, contractAddress: null },
    fromAddress: '0x1111111111111111111111111111111111111111',
    toAddress: '0x2222222222222222222222222222222222222222',
    eventType: 'native_transfer',
    eventIndex: 0,
  };
}

/**
 * One event, one transaction, one commit. walletd: recordEvent() (event row + delivery row +
 * pg_notify). graphile-worker: graphile_worker.add_job() with the same envelope bytes as payload
 * (job row + its own notify). Returns the event id.
 */
function makeProducer(system, db, seed) {
  const input = () => ({
    type: 'deposit.confirmed',
    chain: 'ethereum',
    network: 'sepolia',
    companyId: seed.companyId,
    walletId: seed.walletId,
    data: depositData(),
  });
  if (system === 'walletd') {
    return async () => {
      const trx = await db.transaction();
      try {
        const { envelope } = await recordEvent(trx, input());
        await trx.commit();
        return envelope.id;
      } catch (err) {
        await trx.rollback().catch(() => undefined);
        throw err;
      }
    };
  }
  return async () => {
    const i = input();
    const envelope = {
      id: randomUUID(),
      type: i.type,
      chain: i.chain,
      network: i.network,
      companyId: i.companyId,
      createdAt: new Date().toISOString(),
      data: i.data,
    };
    const payload = JSON.stringify({ url: seed.receiverUrl, eventId: envelope.id, body: JSON.stringify(envelope) });
    const trx = await db.transaction();
    try {
      await trx.raw(`select graphile_worker.add_job('deliver', ?::json)`, [payload]);
      await trx.commit();
      return envelope.id;
    } catch (err) {
      await trx.rollback().catch(() => undefined);
      throw err;
    }
  };
}

/**
 * Commits `count` events from `producers` concurrent loops; with `rate` > 0, event i starts no
 * earlier than start + i/rate seconds. Commit time = when the COMMIT's reply reached us.
 */
async function produce(produceOne, count, producers, rate) {
  const commitAt = new Map();
  let next = 0;
  const start = performance.now();
  async function loop() {
    for (;;) {
      const i = next++;
      if (i >= count) return;
      if (rate > 0) {
        const due = start + (i * 1000) / rate;
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
      }
      const id = await produceOne();
      commitAt.set(id, performance.now());
    }
  }
  await Promise.all(Array.from({ length: Math.min(producers, count) }, loop));
  const times = [...commitAt.values()];
  return { commitAt, firstCommit: Math.min(...times), lastCommit: Math.max(...times) };
}

/** Waits until the queue holds nothing unfinished (outcomes recorded / jobs completed). */
async function waitDrained(system, db, expectedRows, deadline) {
  for (;;) {
    let done;
    if (system === 'walletd') {
      const { rows } = await db.raw(
        `select count(*)::int as total, count(*) filter (where status = 'delivered')::int as delivered from webhook_deliveries`,
      );
      done = rows[0].total === expectedRows && rows[0].delivered === expectedRows;
    } else {
      const { rows } = await db.raw('select count(*)::int as n from graphile_worker._private_jobs');
      done = rows[0].n === 0;
    }
    if (done) return performance.now();
    if (performance.now() > deadline) throw new Error(`${system}: queue not drained before the deadline`);
    await sleep(5);
  }
}

async function resetQueues(db) {
  await db.raw('truncate table webhook_deliveries, events');
  await db.raw('delete from graphile_worker._private_jobs');
  await db.raw('vacuum analyze webhook_deliveries, events, graphile_worker._private_jobs, graphile_worker._private_job_queues');
}

async function startRunners(system, count, runnerConfig) {
  const runners = [];
  try {
    for (let i = 0; i < count; i++) runners.push(new RunnerProcess(RUNNER_SCRIPTS[system], runnerConfig));
    await Promise.all(runners.map((r) => r.next('ready')));
    return runners;
  } catch (err) {
    for (const r of runners) r.kill();
    throw err;
  }
}

function runnerConfigFor(ctx, system) {
  const { settings } = ctx;
  return {
    url: ctx.url,
    concurrency: settings.concurrency,
    batchSize: settings.batchSize,
    pollMs: settings.pollMs,
    pool: settings.pool,
    masterKeyHex: ctx.masterKeyHex,
    signingSecret: ctx.seed.signingSecret,
    gwLocalQueue: settings.gwLocalQueue,
    gwCompleteBatchMs: settings.gwCompleteBatchMs,
    batched: system === 'graphile-worker-batched',
  };
}

async function runScenario(ctx, { system, mode, runners: runnerCount, repeat = 0 }) {
  const { settings, db, receiver } = ctx;
  const label = `${system} ${mode} x${runnerCount}${settings.repeat > 1 ? ` #${repeat + 1}` : ''}`;
  process.stdout.write(`\n${label}: `);
  await resetQueues(db);
  receiver.reset();
  const produceOne = makeProducer(system, db, ctx.seed);
  const runnerConfig = runnerConfigFor(ctx, system);
  const n = settings.events;
  let runners = [];
  try {
    let start;
    let produced;
    let cpu;
    let producerCpu = null;
    let cpuStartedAt;
    let expectedRows = n;
    const timed = mode !== 'backlog';
    if (timed) {
      runners = await startRunners(system, runnerCount, runnerConfig);
      for (const r of runners) r.go();
      await Promise.all(runners.map((r) => r.next('started')));
      if (settings.warmup > 0) {
        process.stdout.write(`warm-up ${settings.warmup}… `);
        await produce(produceOne, settings.warmup, settings.producers, 0);
        await receiver.waitFor(settings.warmup, settings.timeoutMs);
        await waitDrained(system, db, settings.warmup, performance.now() + settings.timeoutMs);
        receiver.reset();
        expectedRows += settings.warmup;
      }
      await Promise.all(runners.map((r) => r.mark()));
      if (settings.pgStatements) await db.raw('select pg_stat_statements_reset()');
      cpu = cpuWindow(ctx.pgDir);
      cpuStartedAt = performance.now();
      process.stdout.write(`measuring ${n}… `);
      produced = await produce(produceOne, n, settings.producers, mode === 'paced' ? settings.rate : 0);
      start = produced.firstCommit;
    } else {
      process.stdout.write(`committing ${n}… `);
      const produceCpu = cpuWindow(ctx.pgDir);
      produced = await produce(produceOne, n, settings.producers, 0);
      producerCpu = produceCpu.end();
      runners = await startRunners(system, runnerCount, runnerConfig);
      if (settings.pgStatements) await db.raw('select pg_stat_statements_reset()');
      process.stdout.write('draining… ');
      cpu = cpuWindow(ctx.pgDir);
      cpuStartedAt = performance.now();
      start = cpuStartedAt;
      for (const r of runners) r.go();
    }
    await receiver.waitFor(n, settings.timeoutMs);
    const { arrivals, duplicates, unsigned } = receiver.snapshot();
    const drainedAt = await waitDrained(system, db, expectedRows, performance.now() + settings.timeoutMs);
    const cpuSpent = cpu.end();
    if (settings.pgStatements) await printStatements(db, label, { per: n, unit: 'event', top: 8, width: 110 });
    const cpuWallMs = drainedAt - cpuStartedAt;
    const lastPost = Math.max(...arrivals.values());
    const latencies = [];
    let early = 0;
    if (timed) {
      for (const [id, at] of arrivals) {
        const c = produced.commitAt.get(id);
        if (c === undefined) continue;
        if (at < c) early += 1; // the POST was read before the COMMIT reply's callback ran
        latencies.push(Math.max(0, at - c));
      }
    }
    const stats = await Promise.all(runners.map((r) => r.stop()));
    runners = [];
    const seconds = (lastPost - start) / 1000;
    const lat = summarise(latencies);
    const result = {
      label,
      system,
      mode,
      runners: runnerCount,
      repeat,
      events: n,
      seconds,
      perSecond: n / seconds,
      p50: lat.p50,
      p99: lat.p99,
      max: lat.max,
      drainedSeconds: (drainedAt - start) / 1000,
      commitPerSecond: n > 1 ? (n - 1) / ((produced.lastCommit - produced.firstCommit) / 1000) : Number.NaN,
      duplicates,
      unsigned,
      early,
      runnerStats: stats,
      cpu: { ...cpuSpent, runners: stats.reduce((a, s) => a + s.cpuMs, 0), wallMs: cpuWallMs },
      producerCpu,
    };
    process.stdout.write(`${fmt(result.perSecond, 0)} events/s`);
    return result;
  } finally {
    for (const r of runners) r.kill();
  }
}

/** Per-scenario dispatcher phase timings (walletd) and task timings (graphile-worker). */
function phaseRows(results) {
  const rows = [];
  for (const r of results) {
    if (r.system === 'walletd') {
      const all = (k) => r.runnerStats.flatMap((s) => s[k]);
      const claims = summarise(all('claims'));
      const claimed = summarise(all('claimed'));
      const sends = summarise(all('sends'));
      const records = summarise(all('records'));
      const posts = summarise(all('posts'));
      const gaps = all('gaps');
      const idle = gaps.reduce((a, b) => a + b, 0);
      const empty = r.runnerStats.reduce((a, s) => a + s.emptyClaims, 0);
      rows.push([
        r.label,
        String(claims.n),
        fmt(claimed.mean, 1),
        `${fmt(claims.p50)}/${fmt(claims.p99)}`,
        `${fmt(sends.p50)}/${fmt(sends.p99)}`,
        `${fmt(records.p50)}/${fmt(records.p99)}`,
        `${fmt(posts.p50)}/${fmt(posts.p99)}`,
        String(empty),
        `${gaps.filter((g) => g >= 100).length}`,
        fmt(idle / 1000 / r.runnerStats.length, 2),
      ]);
    }
  }
  return rows;
}

function taskRows(results) {
  return results
    .filter((r) => r.system !== 'walletd')
    .map((r) => {
      const t = summarise(r.runnerStats.flatMap((s) => s.tasks));
      const failures = r.runnerStats.reduce((a, s) => a + s.failures, 0);
      return [r.label, String(t.n), `${fmt(t.p50)}/${fmt(t.p99)}`, String(failures)];
    });
}

/** CPU per delivered event in the measured window: where the machine's time went. */
function cpuRows(results, cores) {
  return results.map((r) => {
    const { machine, pg, self, runners, wallMs } = r.cpu;
    const per = (ms) => fmt((ms * 1000) / r.events, 0);
    return [
      r.label,
      per(runners),
      per(pg),
      per(self),
      per(machine - runners - pg - self),
      per(machine),
      `${fmt((100 * machine) / (wallMs * cores), 0)}%`,
      r.producerCpu ? per(r.producerCpu.self) : '-',
      r.producerCpu ? per(r.producerCpu.pg) : '-',
    ];
  });
}

function resultRows(results) {
  return results.map((r) => {
    const ratioTo = (system) => {
      const peer = results.find((o) => o.system === system && o.mode === r.mode && o.runners === r.runners && o.repeat === r.repeat);
      return r.system === 'walletd' && peer ? `${fmt(r.perSecond / peer.perSecond, 2)}x` : '';
    };
    return [
      r.label,
      String(r.events),
      fmt(r.seconds, 2),
      fmt(r.perSecond, 0),
      r.mode !== 'backlog' ? fmt(r.p50) : '-',
      r.mode !== 'backlog' ? fmt(r.p99) : '-',
      r.mode !== 'backlog' ? fmt(r.max, 0) : '-',
      ratioTo('graphile-worker'),
      ratioTo('graphile-worker-batched'),
      fmt(r.drainedSeconds, 2),
      fmt(r.commitPerSecond, 0),
      String(r.duplicates),
    ];
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** BENCH_REPEAT > 1: per scenario, every repeat's events/s, the median, and walletd ÷ each peer's median. */
function medianRows(results) {
  const groups = new Map();
  for (const r of results) {
    const key = `${r.system} ${r.mode} x${r.runners}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const medianOf = (system, mode, runners) => {
    const g = groups.get(`${system} ${mode} x${runners}`);
    return g ? median(g.map((r) => r.perSecond)) : null;
  };
  return [...groups].map(([key, rs]) => {
    const { system, mode, runners } = rs[0];
    const own = median(rs.map((r) => r.perSecond));
    const ratio = (peer) => {
      const m = system === 'walletd' ? medianOf(peer, mode, runners) : null;
      return m ? `${fmt(own / m, 2)}x` : '';
    };
    return [
      key,
      rs.map((r) => fmt(r.perSecond, 0)).join(' / '),
      fmt(own, 0),
      mode !== 'backlog' ? fmt(median(rs.map((r) => r.p99))) : '-',
      ratio('graphile-worker'),
      ratio('graphile-worker-batched'),
    ];
  });
}

const MEDIAN_HEADERS = ['scenario', 'events/s per repeat', 'median events/s', 'median p99 ms', 'walletd/gw', 'walletd/gw-batched'];
const MEDIAN_ALIGN = ['l', 'r', 'r', 'r', 'r', 'r'];

const RESULT_HEADERS = [
  'scenario',
  'events',
  'seconds',
  'events/s',
  'p50 ms',
  'p99 ms',
  'max ms',
  'walletd/gw',
  'walletd/gw-batched',
  'drained s',
  'commits/s',
  'dup',
];
const RESULT_ALIGN = ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'];
const PHASE_HEADERS = [
  'walletd scenario',
  'rounds',
  'rows/round',
  'claim ms p50/p99',
  'send ms p50/p99',
  'record ms p50/p99',
  'POST ms p50/p99',
  'empty claims',
  'gaps>=100ms',
  'idle s/disp',
];
const PHASE_ALIGN = ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'];
const CPU_HEADERS = [
  'scenario',
  'runners µs/ev',
  'PostgreSQL µs/ev',
  'bench µs/ev',
  'other µs/ev',
  'machine µs/ev',
  'busy',
  'commit: bench µs/ev',
  'commit: PostgreSQL µs/ev',
];
const CPU_ALIGN = ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'];
const TASK_HEADERS = ['graphile-worker scenario', 'jobs', 'task ms p50/p99', 'failed'];
const TASK_ALIGN = ['l', 'r', 'r', 'r'];

async function main(argv) {
  if (argv.length > 0) throw new Error(`outbox takes no arguments (got ${argv.join(' ')}); use the BENCH_* environment variables`);
  const settings = readSettings();
  const logger = createLogger({ level: 'silent' });
  const dataDir = mkdtempSync(join(os.tmpdir(), 'walletd-bench-'));
  let pg;
  let db;
  let receiver;
  let interrupted = false;
  const cleanup = async () => {
    await receiver?.close().catch(() => undefined);
    await db?.destroy().catch(() => undefined);
    await pg?.stop({ force: true }).catch((err) => console.error('could not stop the bench PostgreSQL:', err.message));
    rmSync(dataDir, { recursive: true, force: true });
  };
  const onSignal = (signal) => {
    if (interrupted) return;
    interrupted = true;
    console.error(`\n${signal}: stopping the bench PostgreSQL…`);
    cleanup().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    const port = await freePort();
    pg = await startEmbeddedPostgres({
      dataDir,
      port,
      logger,
      database: 'walletd_bench',
      ephemeral: true,
      serverSettings: {
        ...(settings.pgStatements ? { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track_planning': 'on' } : {}),
        ...settings.pgSettings,
      },
    });
    db = createDb({ url: pg.url, poolMax: settings.producers + 4, applicationName: 'walletd-bench-producer' });
    await migrateLatest(db);
    if (settings.pgStatements) await db.raw('create extension if not exists pg_stat_statements');
    const utils = await makeWorkerUtils({ connectionString: pg.url, logger: new Logger(() => () => undefined) });
    await utils.migrate();
    await utils.release();

    receiver = await startReceiver();
    const masterKeyHex = randomBytes(32).toString('hex');
    const masterKey = new MasterKey(Buffer.from(masterKeyHex, 'hex'));
    const company = await createCompany(db, { name: 'Bench', plan: 'paid' });
    const owner = await addMember(db, { companyId: company.id, email: 'owner@bench.example', role: 'owner' });
    const { record: key } = await createApiKey(db, {
      companyId: company.id,
      createdBy: owner.id,
      actions: [...ALL_ACTIONS],
      walletIds: null,
    });
    const [wallet] = await db('wallets')
      .insert({ company_id: company.id, name: 'w', chain: 'ethereum', network: 'sepolia', secret_envelope: {} })
      .returning('id');
    const webhook = await createWebhook(
      { db, masterKey, policy: new DestinationPolicy(['127.0.0.0/8']) },
      { companyId: company.id, keyId: key.id, walletIds: null },
      { type: 'api', config: { url: receiver.url }, events: ['*'] },
    );
    const { rows: versionRows } = await db.raw('show server_version');
    const seed = { companyId: company.id, walletId: wallet.id, receiverUrl: receiver.url, signingSecret: webhook.signingSecret };
    const ctx = { settings, db, receiver, url: pg.url, pgDir: pg.dataDir, masterKeyHex, masterKey, seed };

    const machine = {
      date: new Date().toISOString(),
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? 'unknown',
      memGiB: os.totalmem() / 2 ** 30,
      node: process.version,
      postgres: versionRows[0].server_version,
      graphileWorker: require('graphile-worker/package.json').version,
      source: sourceState(),
    };
    console.log(
      `outbox bench: ${settings.events} events/scenario, modes ${settings.modes.join(',')}, runners ${settings.runners.join(',')}, ` +
        `producers ${settings.producers}, paced rate ${settings.rate}/s, concurrency ${settings.concurrency}, batchSize ${settings.batchSize}, ` +
        `poll ${settings.pollMs} ms, pool ${settings.pool}, gw-batched localQueue ${settings.gwLocalQueue} completeJobBatchDelay ${settings.gwCompleteBatchMs}; ` +
        (settings.walletdDispatcher ? `walletd dispatcher from ${settings.walletdDispatcher}; ` : '') +
        `${machine.cpus} CPUs (${machine.cpuModel}), node ${machine.node}, PostgreSQL ${machine.postgres}; walletd ${machine.source}`,
    );

    const results = [];
    const isolation = [];
    const helpers = { makeProducer, produce, resetQueues, startRunners, runnerConfig: runnerConfigFor };
    for (const mode of settings.modes) {
      if (mode === 'isolation') {
        for (const dead of settings.dead) isolation.push(await runIsolation(ctx, helpers, dead));
        for (const dead of settings.freshDead) isolation.push(await runIsolation(ctx, helpers, dead, true));
        continue;
      }
      for (const runners of settings.runners) {
        for (let repeat = 0; repeat < settings.repeat; repeat++) {
          const order = repeat % 2 === 0 ? settings.systems : [...settings.systems].reverse();
          for (const system of order) results.push(await runScenario(ctx, { system, mode, runners, repeat }));
        }
      }
    }
    process.stdout.write('\n\n');

    const resultTable = { headers: RESULT_HEADERS, rows: resultRows(results), align: RESULT_ALIGN };
    const phaseTable = { headers: PHASE_HEADERS, rows: phaseRows(results), align: PHASE_ALIGN };
    const taskTable = { headers: TASK_HEADERS, rows: taskRows(results), align: TASK_ALIGN };
    const cpuTable = { headers: CPU_HEADERS, rows: cpuRows(results, machine.cpus), align: CPU_ALIGN };
    const medianTable = settings.repeat > 1 ? { headers: MEDIAN_HEADERS, rows: medianRows(results), align: MEDIAN_ALIGN } : null;
    const isolationTable = isolation.length ? { headers: ISOLATION_HEADERS, rows: isolationRows(isolation), align: ISOLATION_ALIGN } : null;
    console.log(table(resultTable.headers, resultTable.rows, resultTable.align));
    if (phaseTable.rows.length) console.log(`\n${table(phaseTable.headers, phaseTable.rows, phaseTable.align)}`);
    if (taskTable.rows.length) console.log(`\n${table(taskTable.headers, taskTable.rows, taskTable.align)}`);
    console.log(`\n${table(cpuTable.headers, cpuTable.rows, cpuTable.align)}`);
    if (medianTable) console.log(`\n${table(medianTable.headers, medianTable.rows, medianTable.align)}`);
    if (isolationTable) console.log(`\n${table(isolationTable.headers, isolationTable.rows, isolationTable.align)}`);
    const odd = results.filter((r) => r.duplicates || r.unsigned || r.early);
    for (const r of odd)
      console.log(`note: ${r.label}: ${r.duplicates} duplicate POSTs, ${r.unsigned} unsigned, ${r.early} read before the commit callback`);

    const file = writeResults({ settings, machine, resultTable, phaseTable, taskTable, cpuTable, medianTable, isolationTable });
    if (file) console.log(`\nfigures written to ${file}`);
    return 0;
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    if (!interrupted) await cleanup();
  }
}

module.exports = { main };
