/**
 * `npm run bench -- api`: walletd's authenticated reads (`GET /v1/wallets`, `/v1/me`,
 * `/v1/transactions`, as `walletd serve --roles api` runs them: Express, authentication, the
 * per-IP limit of spec 8 in its shared store, pino logs) against a plain node:http + pg server doing
 * the same lookups (bench/api/baselineServer.js), on one embedded PostgreSQL, in the same run.
 * Each server is a child process; autocannon (this process) drives 50 connections for
 * BENCH_SECONDS per endpoint and server, after a 1 s warm-up; at a BENCH_RATE, loadtest paces the
 * requests evenly instead (paced.js). See bench/README.md.
 */
const { fork, spawn } = require('node:child_process');
const { mkdtempSync } = require('node:fs');
const os = require('node:os');
const { join } = require('node:path');
const autocannon = require('autocannon');
const { createLogger, startEmbeddedPostgres } = require('@walletd/core');
const { seedBenchCompany } = require('./benchCompany');
const { stopBench } = require('./stopBench');
const { sourceState } = require('../sourceState');
const { pacedRun } = require('./paced');
const { cpuDelta, cpuSeconds, postgresPids } = require('./procCpu');
const { endpointSpecs, resolveEndpoints } = require('./endpoints');
const { historySizes, openHistory, pageCursor } = require('./history');
const { historyTable } = require('./summary');
const { freePort } = require('../freePort');

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const EPHEMERAL = process.env.BENCH_EPHEMERAL === '1';
/** BENCH_API_TRANSFERS: the history sizes to measure at, in one run (history.js); none by default. */
const SIZES = historySizes();
const ENDPOINTS = endpointSpecs(SIZES.length > 0);
/**
 * Client addresses the requests come from (X-Forwarded-For through the one trusted proxy, loopback).
 * Spec 8 caps one address at 300 requests a minute, so real load at these rates comes from many
 * addresses; from a single one, every request would update the same counter row and the bench would
 * measure PostgreSQL's row-lock queue. BENCH_CLIENTS=1 measures exactly that.
 */
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 1000);
/**
 * BENCH_RATE=<req/s>: drive both servers at this fixed overall rate instead of as fast as they go.
 * Below saturation the CPU milliseconds per request are free of the queueing a saturated 2-core
 * machine adds, which makes them the steadier figure when comparing two builds.
 */
/**
 * BENCH_WARMUP=<seconds> of load before the measured run (default 1). At a fixed low rate a 1 s
 * warm-up leaves the JIT still compiling walletd's hot path during the measurement.
 */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1);
const RATE = process.env.BENCH_RATE ? Number(process.env.BENCH_RATE) : undefined;
/** A BENCH_RATE run is evenly paced (paced.js) unless BENCH_PACER=autocannon (its bursts, as in figures before 2026-11-25's fifth session). */
const PACED = RATE !== undefined && process.env.BENCH_PACER !== 'autocannon';

// 90 s: a walletd start loads every plugin, and on this shared 2-core machine at load 12–15 that took
// over 30 s (the smoke run failed waiting).
async function waitHttp(url, ms = 90_000) {
  const until = Date.now() + ms;
  for (;;) {
    try {
      const r = await fetch(url);
      if (r.status < 500) return;
    } catch {}
    if (Date.now() > until) throw new Error(`${url} did not come up`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function drive(url, key, server) {
  let n = 0;
  const spread = (req) => ({
    ...req,
    headers: { ...req.headers, 'x-forwarded-for': `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${(n++ % CLIENTS) & 255}` },
  });
  const opts = {
    url,
    connections: CONNECTIONS,
    headers: { authorization: `Bearer ${key}` },
    ...(RATE ? { overallRate: RATE } : {}),
    ...(CLIENTS > 1 ? { requests: [{ setupRequest: spread }] } : {}),
  };
  const spreadHeader = () => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${(n++ % CLIENTS) & 255}`;
  const run = async (duration) => {
    if (PACED) return pacedRun({ url, key, rate: RATE, seconds: duration, spread: spreadHeader });
    const r = await autocannon({ ...opts, duration });
    return { total: r.requests.total, failed: r.non2xx + r.errors, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99 };
  };
  await run(WARMUP);
  // Backends come and go with the pools: list them after the warm-up, when both pools are full.
  const pgPids = postgresPids(server.dataDir);
  // The server's user time apart: its system time is mostly the kernel's loopback TCP work for its writes.
  const reading = () => ({ server: cpuSeconds([server.pid]), user: cpuSeconds([server.pid], 'user'), pg: cpuSeconds(pgPids) });
  const before = reading();
  const r = await run(SECONDS);
  const after = reading();
  if (r.failed > 0) throw new Error(`${url}: ${r.failed} failed or non-2xx answers`);
  const perRequest = (k) => {
    const seconds = cpuDelta(before[k], after[k]);
    return seconds === null ? null : (seconds * 1000) / r.total;
  };
  return {
    rps: r.rps,
    p50: r.p50,
    p99: r.p99,
    unanswered: r.unanswered ?? 0,
    cpuMs: perRequest('server'),
    userMs: perRequest('user'),
    pgMs: perRequest('pg'),
  };
}

async function main() {
  const dir = mkdtempSync(join(os.tmpdir(), 'walletd-bench-api-'));
  const dataDir = mkdtempSync(join(os.tmpdir(), 'walletd-bench-api-pg-'));
  const logger = createLogger({ level: 'warn' });
  const pgPort = await freePort();
  const pg = await startEmbeddedPostgres({ dataDir, port: pgPort, logger, database: 'walletd_bench', ephemeral: EPHEMERAL });
  const children = [];
  try {
    const { key, masterHex, configPath: config, companyId } = await seedBenchCompany(pg.url, dir);
    // BENCH_PROFILE=<dir>: a CPU profile of the walletd process (--cpu-prof), written when it exits.
    const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
    // BENCH_WALLETD_NODE_ARGS: more node flags for the walletd process (e.g. --trace-deopt, printed on its stdout).
    profile.push(...(process.env.BENCH_WALLETD_NODE_ARGS ?? '').split(' ').filter(Boolean));
    const startWalletd = async (main, flags) => {
      const port = await freePort();
      const child = spawn(process.execPath, [...flags, main, 'serve', '--roles', 'api', '--config', config], {
        env: {
          ...process.env,
          DATABASE_URL: pg.url,
          WALLETD_MASTER_KEY: masterHex,
          PORT: String(port),
          HOST: '127.0.0.1',
          LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
        },
        stdio: ['ignore', process.env.BENCH_WALLETD_NODE_ARGS ? 'inherit' : 'ignore', 'inherit'],
      });
      children.push(child);
      return { child, port };
    };
    const { child: walletd, port: walletdPort } = await startWalletd(
      join(__dirname, '..', '..', 'server', 'dist', 'cli', 'main.js'),
      profile,
    );
    // BENCH_COMPARE=<path of another build's server/dist/cli/main.js>: a second walletd, driven in
    // the same run after this build's, for a before/after figure on the same machine in one run.
    // The copy must sit inside the repository (it resolves @walletd/core through node_modules).
    const other = process.env.BENCH_COMPARE ? await startWalletd(process.env.BENCH_COMPARE, []) : undefined;
    const basePort = await freePort();
    const baseline = fork(join(__dirname, 'baselineServer.js'), {
      // BENCH_PROFILE profiles the baseline too (its own file in the same folder), to compare like with like.
      execArgv: process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [],
      env: { ...process.env, DATABASE_URL: pg.url, PORT: String(basePort) },
      stdio: 'inherit',
    });
    children.push(baseline);
    await waitHttp(`http://127.0.0.1:${walletdPort}/healthz`);
    if (other) await waitHttp(`http://127.0.0.1:${other.port}/healthz`);
    await waitHttp(`http://127.0.0.1:${basePort}/v1/me`);

    console.log(
      `api bench: ${os.cpus().length} cores, node ${process.version}, commit ${sourceState()}, PostgreSQL ${EPHEMERAL ? 'fsync off' : 'durable (fsync on)'}, ${PACED ? `${RATE} req/s evenly paced` : `${CONNECTIONS} connections`} from ${CLIENTS} client address${CLIENTS === 1 ? '' : 'es'}, ${SECONDS} s per run`,
    );
    const history = SIZES.length > 0 ? await openHistory(pg.url, companyId) : undefined;
    if (history)
      console.log(
        `history: ${history.wallets} wallets with an address each, the scoped key limited to ${history.inScope} of them, sizes ${SIZES.join(', ')} transfers`,
      );
    const rows = [];
    const width = Math.max(18, ...ENDPOINTS.map((e) => e.length + 16));
    const measure = async (size) => {
      const cursor = () => pageCursor(`http://127.0.0.1:${walletdPort}`, key, 10);
      for (const { label, path, scoped } of await resolveEndpoints(ENDPOINTS, cursor)) {
        const k = scoped ? history.scopedKey : key;
        const base = await drive(`http://127.0.0.1:${basePort}${path}`, k, { pid: baseline.pid, dataDir });
        const ours = await drive(`http://127.0.0.1:${walletdPort}${path}`, k, { pid: walletd.pid, dataDir });
        const before = other ? await drive(`http://127.0.0.1:${other.port}${path}`, k, { pid: other.child.pid, dataDir }) : undefined;
        rows.push({ size, label, base, ours, before });
        const ms = (v) => (v === null ? '?' : v.toFixed(2));
        const cpu = (x) =>
          ` cpu ${ms(x.cpuMs)} ms (user ${ms(x.userMs)}) pg ${ms(x.pgMs)} ms${x.unanswered ? ` UNANSWERED ${x.unanswered}` : ''}`;
        const cpuRatio = (x) => (x.cpuMs === null || !base.cpuMs ? '?' : `${(x.cpuMs / base.cpuMs).toFixed(2)}x`);
        console.log(
          `${label.padEnd(width)} baseline ${base.rps.toFixed(0).padStart(6)} req/s p50 ${base.p50} ms p99 ${base.p99} ms${cpu(base)} | walletd ${ours.rps.toFixed(0).padStart(6)} req/s p50 ${ours.p50} ms p99 ${ours.p99} ms${cpu(ours)} | ${(ours.rps / base.rps).toFixed(2)}x, p99 ${(ours.p99 / Math.max(base.p99, 0.01)).toFixed(2)}x, cpu ${cpuRatio(ours)}`,
        );
        if (before)
          console.log(
            `${''.padEnd(width)} compare (BENCH_COMPARE) ${before.rps.toFixed(0).padStart(6)} req/s p50 ${before.p50} ms p99 ${before.p99} ms${cpu(before)} | ${(before.rps / base.rps).toFixed(2)}x, p99 ${(before.p99 / Math.max(base.p99, 0.01)).toFixed(2)}x, cpu ${cpuRatio(before)}`,
          );
      }
    };
    if (!history) await measure(undefined);
    for (const size of SIZES) {
      const grown = await history.growTo(size);
      console.log(
        `\n${size.toLocaleString('en')} transfers: seeded, analyzed and checkpointed in ${grown.seconds.toFixed(1)} s, database ${grown.bytes}, load ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
      );
      await measure(size);
    }
    if (history) {
      await history.close();
      console.log(
        `\n${historyTable(rows)}\nload at the end ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
      );
    }
    return 0;
  } finally {
    await stopBench({ children, pg, dirs: [dir, dataDir] });
  }
}

module.exports = { main };
