/**
 * `npm run bench -- outbox`: walletd's webhook outbox against graphile-worker, on one embedded
 * PostgreSQL, in one run. See bench/README.md for what is measured and the knobs.
 *
 * Process layout: this process runs the producer (commits events) and the receiver (times the
 * POSTs), so commit and arrival times share one performance.now() clock. Each dispatcher (walletd)
 * or runner (graphile-worker) is a child process of its own, as they would be deployed.
 */
const { randomBytes } = require('node:crypto');
const { mkdtempSync, rmSync } = require('node:fs');
const os = require('node:os');
const { join } = require('node:path');
const { performance } = require('node:perf_hooks');
const { ALL_ACTIONS, MasterKey, createDb, createLogger, migrateLatest, startEmbeddedPostgres } = require('@walletd/core');
const { DestinationPolicy, addMember, createApiKey, createCompany, createWebhook } = require('@walletd/server');
const { makeWorkerUtils, Logger } = require('graphile-worker');
const { startReceiver } = require('./receiver');
const { readSettings } = require('./settings');
const { summarise, fmt, table } = require('./stats');
const { writeResults } = require('./readme');
const { cpuWindow } = require('./cpu');
const { runIsolation, isolationRows, ISOLATION_HEADERS, ISOLATION_ALIGN } = require('./isolation');
const { printStatements } = require('../pgStatements');
const { freePort } = require('../freePort');
const { sourceState } = require('../sourceState');
const { makeProducer, produce } = require('./producer');
const { resetQueues, runnerConfigFor, startRunners, waitDrained } = require('./queues');
const {
  phaseRows,
  taskRows,
  cpuRows,
  resultRows,
  medianRows,
  MEDIAN_HEADERS,
  MEDIAN_ALIGN,
  RESULT_HEADERS,
  RESULT_ALIGN,
  PHASE_HEADERS,
  PHASE_ALIGN,
  CPU_HEADERS,
  CPU_ALIGN,
  TASK_HEADERS,
  TASK_ALIGN,
} = require('./tableRows');

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
