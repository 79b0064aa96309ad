/**
 * `npm run bench -- api`: walletd's authenticated reads (`GET /v1/wallets`, `/v1/me`,
 * `/v1/transactions`, as `walletd serve --roles api` runs them: Express, authentication, the
 * per-IP limit of spec 8 in its shared store, pino logs) against a plain node:http + pg server doing
 * the same lookups (bench/api/baselineServer.js), on one embedded PostgreSQL, in the same run.
 * Each server is a child process; autocannon (this process) drives 50 connections for
 * BENCH_SECONDS per endpoint and server, after a 1 s warm-up. See bench/README.md.
 */
const { fork, spawn } = require('node:child_process');
const { mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const { join } = require('node:path');
const autocannon = require('autocannon');
const { ALL_ACTIONS, MasterKey, createDb, createLogger, migrateLatest, startEmbeddedPostgres } = require('@walletd/core');
const { addMember, createApiKey, createCompany, createWallet } = require('@walletd/server');
const { sourceState } = require('./sourceState');

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const EPHEMERAL = process.env.BENCH_EPHEMERAL === '1';
const ENDPOINTS = (process.env.BENCH_ENDPOINTS ?? '/v1/wallets,/v1/me,/v1/transactions').split(',');
/**
 * Client addresses the requests come from (X-Forwarded-For through the one trusted proxy, loopback).
 * Spec 8 caps one address at 300 requests a minute, so real load at these rates comes from many
 * addresses; from a single one, every request would update the same counter row and the bench would
 * measure PostgreSQL's row-lock queue. BENCH_CLIENTS=1 measures exactly that.
 */
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 1000);

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function waitHttp(url, ms = 30_000) {
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

async function drive(url, key) {
  let n = 0;
  const spread = (req) => ({
    ...req,
    headers: { ...req.headers, 'x-forwarded-for': `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${(n++ % CLIENTS) & 255}` },
  });
  const opts = {
    url,
    connections: CONNECTIONS,
    headers: { authorization: `Bearer ${key}` },
    ...(CLIENTS > 1 ? { requests: [{ setupRequest: spread }] } : {}),
  };
  await autocannon({ ...opts, duration: 1 });
  const r = await autocannon({ ...opts, duration: SECONDS });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${url}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99 };
}

async function main() {
  const dir = mkdtempSync(join(os.tmpdir(), 'walletd-bench-api-'));
  const dataDir = mkdtempSync(join(os.tmpdir(), 'walletd-bench-api-pg-'));
  const logger = createLogger({ level: 'warn' });
  const pgPort = await freePort();
  const pg = await startEmbeddedPostgres({ dataDir, port: pgPort, logger, database: 'walletd_bench', ephemeral: EPHEMERAL });
  const children = [];
  try {
    const db = createDb({ url: pg.url });
    await migrateLatest(db);
    const company = await createCompany(db, { name: 'Bench', plan: 'paid' });
    await addMember(db, { companyId: company.id, email: 'owner@bench.example', role: 'owner' });
    const { key } = await createApiKey(db, { companyId: company.id, name: 'bench', actions: ALL_ACTIONS });
    const masterHex = require('node:crypto').randomBytes(32).toString('hex');
    const masterKey = new MasterKey(Buffer.from(masterHex, 'hex'));
    for (let i = 0; i < 10; i++)
      await createWallet(db, masterKey, { companyId: company.id, name: `w${i}`, chain: 'ethereum', network: 'sepolia' });
    await db.destroy();

    const config = join(dir, 'walletd.json');
    // The per-IP limit stays on (its store is written per request) but high enough never to refuse the bench.
    writeFileSync(
      config,
      JSON.stringify({
        bootstrap: false,
        devnet: { enabled: false },
        chains: [],
        rateLimit: { perIpPerMinute: 1_000_000_000, writesPerKeyPerMinute: 20 },
      }),
    );
    const walletdPort = await freePort();
    // BENCH_PROFILE=<dir>: a CPU profile of the walletd process (--cpu-prof), written when it exits.
    const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
    const walletd = spawn(
      process.execPath,
      [...profile, join(__dirname, '..', '..', 'server', 'dist', 'cli', 'main.js'), 'serve', '--roles', 'api', '--config', config],
      {
        env: {
          ...process.env,
          DATABASE_URL: pg.url,
          WALLETD_MASTER_KEY: masterHex,
          PORT: String(walletdPort),
          HOST: '127.0.0.1',
          LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
        },
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    children.push(walletd);
    const basePort = await freePort();
    const baseline = fork(join(__dirname, 'baselineServer.js'), {
      env: { ...process.env, DATABASE_URL: pg.url, PORT: String(basePort) },
      stdio: 'inherit',
    });
    children.push(baseline);
    await waitHttp(`http://127.0.0.1:${walletdPort}/healthz`);
    await waitHttp(`http://127.0.0.1:${basePort}/v1/me`);

    console.log(
      `api bench: ${os.cpus().length} cores, node ${process.version}, commit ${sourceState()}, PostgreSQL ${EPHEMERAL ? 'fsync off' : 'durable (fsync on)'}, ${CONNECTIONS} connections from ${CLIENTS} client address${CLIENTS === 1 ? '' : 'es'}, ${SECONDS} s per run`,
    );
    const rows = [];
    for (const path of ENDPOINTS) {
      const base = await drive(`http://127.0.0.1:${basePort}${path}`, key);
      const ours = await drive(`http://127.0.0.1:${walletdPort}${path}`, key);
      rows.push({ path, base, ours });
      console.log(
        `${path.padEnd(18)} baseline ${base.rps.toFixed(0).padStart(6)} req/s p50 ${base.p50} ms p99 ${base.p99} ms | walletd ${ours.rps.toFixed(0).padStart(6)} req/s p50 ${ours.p50} ms p99 ${ours.p99} ms | ${(ours.rps / base.rps).toFixed(2)}x, p99 ${(ours.p99 / Math.max(base.p99, 1)).toFixed(2)}x`,
      );
    }
    return 0;
  } finally {
    await Promise.all(
      children.map((c) =>
        c.exitCode !== null
          ? null
          : new Promise((r) => {
              c.once('exit', r);
              c.kill('SIGTERM');
            }),
      ),
    );
    await pg.stop({ force: true });
    rmSync(dir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
}

module.exports = { main };
