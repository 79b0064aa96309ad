/**
 * `npm run bench -- api-ab`: walletd builds (or one build under different settings) against each
 * other, CPU per request at a fixed rate, measured in alternating rounds on one PostgreSQL.
 *
 *   BENCH_AB='before=server/.bench-before/dist/cli/main.js,after=server/dist/cli/main.js' npm run bench -- api-ab
 *   BENCH_AB='info=server/dist/cli/main.js,warn=server/dist/cli/main.js?LOG_LEVEL=warn' …
 *
 * Why: on a shared 2-core machine a whole `api` run scatters by ±30 % from one run to the next,
 * more than most single changes are worth. Here every variant serves the same requests in turn,
 * round after round (the order flips each round), so slow phases of the machine fall on all of them
 * alike, and the median of the rounds is compared. A variant is `label=<main.js>[?ENV=value&…]`;
 * a copy of a build must sit inside the repository (it finds @walletd/core through node_modules).
 * BENCH_ROUNDS (5), BENCH_REQUESTS per round (3000), BENCH_RATE (500 req/s), BENCH_ENDPOINTS
 * (/v1/me), BENCH_CONNECTIONS (10), BENCH_CLIENTS (1000 addresses), BENCH_WARMUP (5 s per variant).
 */
const { spawn } = require('node:child_process');
const { mkdtempSync, readFileSync } = require('node:fs');
const os = require('node:os');
const { join, resolve } = require('node:path');
const autocannon = require('autocannon');
const { createLogger, startEmbeddedPostgres } = require('@walletd/core');
const { seedBenchCompany } = require('./benchCompany');
const { stopBench } = require('./stopBench');
const { sourceState } = require('../sourceState');
const { freePort } = require('../freePort');

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 3000);
const RATE = Number(process.env.BENCH_RATE ?? 500);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 1000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 5);
const ENDPOINTS = (process.env.BENCH_ENDPOINTS ?? '/v1/me').split(',');

function parseVariants(spec) {
  return spec.split(',').map((item) => {
    const [label, rest] =
      item.split('=', 2).length === 2 ? [item.slice(0, item.indexOf('=')), item.slice(item.indexOf('=') + 1)] : [item, item];
    const [path, query] = rest.split('?');
    const env = Object.fromEntries(new URLSearchParams(query ?? ''));
    return { label, main: resolve(path), env };
  });
}

async function waitHttp(url, ms = 60_000) {
  const until = Date.now() + ms;
  for (;;) {
    try {
      if ((await fetch(url)).status < 500) return;
    } catch {}
    if (Date.now() > until) throw new Error(`${url} did not come up`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** User + system CPU seconds of one process so far (all its threads: JIT and GC included). */
function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

function rssMiB(pid) {
  const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : null;
}

async function drive(url, key, opts) {
  let n = 0;
  const spread = (req) => ({
    ...req,
    headers: { ...req.headers, 'x-forwarded-for': `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${(n++ % CLIENTS) & 255}` },
  });
  const r = await autocannon({
    url,
    connections: CONNECTIONS,
    headers: { authorization: `Bearer ${key}` },
    overallRate: RATE,
    requests: [{ setupRequest: spread }],
    ...opts,
  });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${url}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
  return r;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function main() {
  const variants = parseVariants(process.env.BENCH_AB ?? 'current=server/dist/cli/main.js');
  const dir = mkdtempSync(join(os.tmpdir(), 'walletd-bench-ab-'));
  const dataDir = mkdtempSync(join(os.tmpdir(), 'walletd-bench-ab-pg-'));
  const pg = await startEmbeddedPostgres({
    dataDir,
    port: await freePort(),
    logger: createLogger({ level: 'warn' }),
    database: 'walletd_ab',
  });
  const children = [];
  try {
    const { key, masterHex, configPath: config } = await seedBenchCompany(pg.url, dir);
    for (const v of variants) {
      v.port = await freePort();
      const flags = (v.env.NODE_FLAGS ?? '').split(' ').filter(Boolean);
      v.child = spawn(process.execPath, [...flags, v.main, 'serve', '--roles', 'api', '--config', config], {
        env: {
          ...process.env,
          DATABASE_URL: pg.url,
          WALLETD_MASTER_KEY: masterHex,
          PORT: String(v.port),
          HOST: '127.0.0.1',
          LOG_LEVEL: 'info',
          ...v.env,
        },
        // The access log goes to a pipe drained here, as a supervisor (systemd, docker) would take it.
        // STDOUT_FILE=<path> in a variant keeps its stdout (node's --trace-gc prints there).
        stdio: ['ignore', v.env.STDOUT_FILE ? require('node:fs').openSync(v.env.STDOUT_FILE, 'w') : 'ignore', 'pipe'],
      });
      v.child.stderr.resume();
      children.push(v.child);
      await waitHttp(`http://127.0.0.1:${v.port}/healthz`);
      v.cpu = Object.fromEntries(ENDPOINTS.map((p) => [p, []]));
      v.p99 = Object.fromEntries(ENDPOINTS.map((p) => [p, []]));
    }
    console.log(
      `api-ab: ${os.cpus().length} cores, load ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(
          ' ',
        )}, node ${process.version}, commit ${sourceState()}, ${ROUNDS} rounds × ${REQUESTS} requests at ${RATE} req/s, ${CONNECTIONS} connections, ${CLIENTS} addresses`,
    );
    for (const path of ENDPOINTS) for (const v of variants) await drive(`http://127.0.0.1:${v.port}${path}`, key, { duration: WARMUP });
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 ? [...variants].reverse() : variants;
      for (const path of ENDPOINTS)
        for (const v of order) {
          const before = cpuSeconds(v.child.pid);
          const r = await drive(`http://127.0.0.1:${v.port}${path}`, key, { amount: REQUESTS });
          v.cpu[path].push(((cpuSeconds(v.child.pid) - before) * 1e6) / r.requests.total);
          v.p99[path].push(r.latency.p99);
        }
    }
    console.log(
      `load after ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    const ref = variants[0];
    for (const path of ENDPOINTS)
      for (const v of variants) {
        const m = median(v.cpu[path]);
        const delta = v === ref ? '' : ` (${(((m - median(ref.cpu[path])) / median(ref.cpu[path])) * 100).toFixed(1)} % vs ${ref.label})`;
        console.log(
          `${path.padEnd(17)} ${v.label.padEnd(12)} cpu µs/req median ${m.toFixed(0)}${delta} [${v.cpu[path].map((x) => x.toFixed(0)).join(' ')}] p99 ms [${v.p99[path].join(' ')}] rss ${rssMiB(v.child.pid)?.toFixed(0)} MiB`,
        );
      }
    return 0;
  } finally {
    await stopBench({ children, pg, dirs: [dir, dataDir] });
  }
}

module.exports = { main };
