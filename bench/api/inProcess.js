/**
 * `npm run bench -- api-inprocess`: the Express app of two server builds (`createApp` from each
 * `dist/`) in ONE process, on one PostgreSQL and one Common (logger, pool, metrics, plugins),
 * driven in turn in short bursts by a minimal keep-alive client in the same process; the figure
 * is the process's CPU (process.cpuUsage) per request of each variant's bursts.
 *
 *   BENCH_INPROC='before=server/.bench-before/dist,after=server/dist' npm run bench -- api-inprocess
 *
 * Why: on a shared 2-core machine the CPU per request of a whole server moves by ±15 % between
 * two runs of the same build (`api-ab`); here both variants run interleaved every few hundred
 * requests in the same process, so the machine's slow phases, the client's cost and the GC of
 * the shared heap fall on both alike, and the difference is the variants' own. The absolute
 * figure includes the client (the same for both): compare differences, not ratios to `api`.
 * Variants differ only in the server package (core comes from node_modules for both).
 * A variant `…/dist?readLimitsAtConnect=false` gets its own reads pool with that setting.
 * BENCH_ENDPOINTS (/v1/me), BENCH_BURST (200 requests), BENCH_BURSTS (60 per variant and endpoint),
 * BENCH_CONNECTIONS (4), BENCH_CLIENTS (1000 addresses), BENCH_GAP_MS (0: each connection sends its next
 * request as soon as the last is answered; 2 with one connection is about 300-400 requests a second). Logs go to stderr: redirect it (2>/dev/null).
 */
const net = require('node:net');
const os = require('node:os');
const { mkdtempSync } = require('node:fs');
const { join, resolve } = require('node:path');
const core = require('@walletd/core');
const { openHistoryReads, openRuntime } = require('@walletd/server');
const { seedBenchCompany } = require('./benchCompany');
const { stopBench } = require('./stopBench');
const { sourceState } = require('../sourceState');

const ENDPOINTS = (process.env.BENCH_ENDPOINTS ?? '/v1/me').split(',');
const BURST = Number(process.env.BENCH_BURST ?? 200);
const BURSTS = Number(process.env.BENCH_BURSTS ?? 60);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 4);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 1000);
const GAP_MS = Number(process.env.BENCH_GAP_MS ?? 0);

function listen(app) {
  return new Promise((ok) => {
    const server = app.listen(0, '127.0.0.1', () => ok(server));
  });
}

/** One keep-alive connection that sends a request and resolves with the status when its response is complete. */
function connection(port) {
  const socket = net.connect(port, '127.0.0.1');
  socket.setNoDelay(true);
  let buf = '';
  let waiting = null;
  socket.setEncoding('latin1');
  socket.on('data', (chunk) => {
    buf += chunk;
    const end = buf.indexOf('\r\n\r\n');
    if (end < 0) return;
    const m = /content-length: (\d+)/i.exec(buf.slice(0, end));
    const total = end + 4 + (m ? Number(m[1]) : 0);
    if (buf.length < total) return;
    const status = Number(buf.slice(9, 12));
    buf = buf.slice(total);
    const w = waiting;
    waiting = null;
    w(status);
  });
  return {
    ready: new Promise((ok) => socket.once('connect', ok)),
    send(text) {
      return new Promise((ok) => {
        waiting = ok;
        socket.write(text);
      });
    },
    close: () => socket.destroy(),
  };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function main() {
  const variants = (process.env.BENCH_INPROC ?? 'current=server/dist').split(',').map((item) => {
    const at = item.indexOf('=');
    const [path, query] = (at < 0 ? item : item.slice(at + 1)).split('?');
    return { label: at < 0 ? item : item.slice(0, at), dist: resolve(path), options: Object.fromEntries(new URLSearchParams(query ?? '')) };
  });
  const dir = mkdtempSync(join(os.tmpdir(), 'walletd-bench-inproc-'));
  const dataDir = mkdtempSync(join(os.tmpdir(), 'walletd-bench-inproc-pg-'));
  const quiet = core.createLogger({ level: 'warn' });
  const pg = await core.startEmbeddedPostgres({
    dataDir,
    port: 20000 + Math.floor(Math.random() * 20000),
    logger: quiet,
    database: 'walletd_inproc',
  });
  let rt;
  const servers = [];
  try {
    const { key, masterHex, configPath: file, plugins } = await seedBenchCompany(pg.url, dir);
    const config = core.loadConfig({ file, env: { DATABASE_URL: pg.url, WALLETD_MASTER_KEY: masterHex } });
    process.env.WALLETD_MASTER_KEY = masterHex;
    const root = core.createLogger({ level: 'info' });
    rt = await openRuntime(config, root, { createCluster: false });
    const common = { config, logger: root, db: rt.db, reads: rt.reads, masterKey: rt.masterKey, plugins, metrics: core.createMetrics() };
    for (const v of variants) {
      // `?logMinLength=<bytes>`: this variant's logger buffers that much before writing (pino's minLength).
      const logger = v.options.logMinLength
        ? core.createLogger({
            level: 'info',
            destination: require('pino').destination({ dest: 2, sync: false, minLength: Number(v.options.logMinLength) }),
          })
        : root;
      // `?readLimitsAtConnect=false`: this variant's history reads on a pool of their own that runs
      // each read in a read-only transaction (the PgBouncer setting), to price the connection-level limits.
      const reads =
        v.options.readLimitsAtConnect === 'false'
          ? openHistoryReads({ ...config, database: { ...config.database, readLimitsAtConnect: false } }, pg.url, rt.db, quiet)
          : null;
      v.history = reads;
      const { app, limiters } = require(join(v.dist, 'app.js')).createApp({ ...common, logger, ...(reads ? { reads: reads.reads } : {}) });
      v.server = await listen(app);
      v.limiters = limiters;
      v.conns = Array.from({ length: CONNECTIONS }, () => connection(v.server.address().port));
      await Promise.all(v.conns.map((c) => c.ready));
      v.cpu = Object.fromEntries(ENDPOINTS.map((p) => [p, []]));
      servers.push(v);
    }
    let n = 0;
    const request = (path) =>
      `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nX-Forwarded-For: 10.0.${(n >> 8) & 255}.${(n++ % CLIENTS) & 255}\r\n\r\n`;
    const burst = async (v, path) => {
      await Promise.all(
        v.conns.map(async (c) => {
          for (let i = 0; i < BURST / CONNECTIONS; i++) {
            // BENCH_GAP_MS: a pause before each request, so that each one arrives alone, as at a fixed rate below saturation.
            if (GAP_MS) await new Promise((r) => setTimeout(r, GAP_MS));
            const status = await c.send(request(path));
            if (status !== 200) throw new Error(`${v.label} ${path}: status ${status}`);
          }
        }),
      );
    };
    console.log(
      `api-inprocess: ${os.cpus().length} cores, load ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(
          ' ',
        )}, node ${process.version}, commit ${sourceState()}, ${BURSTS} bursts × ${BURST} requests per variant and endpoint, ${CONNECTIONS} connections`,
    );
    // Warm-up: JIT and pools, unmeasured.
    for (let i = 0; i < 15; i++) for (const path of ENDPOINTS) for (const v of variants) await burst(v, path);
    for (let i = 0; i < BURSTS; i++) {
      const order = i % 2 ? [...variants].reverse() : variants;
      for (const path of ENDPOINTS)
        for (const v of order) {
          const before = process.cpuUsage();
          await burst(v, path);
          const d = process.cpuUsage(before);
          v.cpu[path].push((d.user + d.system) / BURST);
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
        const diff =
          v === ref
            ? ''
            : ` (${(m - median(ref.cpu[path])).toFixed(1)} µs, ${(((m - median(ref.cpu[path])) / median(ref.cpu[path])) * 100).toFixed(1)} % vs ${ref.label})`;
        const s = [...v.cpu[path]].sort((a, b) => a - b);
        console.log(
          `${path.padEnd(17)} ${v.label.padEnd(12)} cpu µs/req (server + client) median ${m.toFixed(1)}${diff} quartiles ${s[Math.floor(s.length / 4)].toFixed(0)}–${s[Math.floor((3 * s.length) / 4)].toFixed(0)}`,
        );
      }
    return 0;
  } finally {
    for (const v of servers) {
      for (const c of v.conns ?? []) c.close();
      for (const s of v.limiters?.stores ?? []) s.shutdown();
      await new Promise((r) => v.server.close(r));
      await v.history?.destroy();
    }
    await rt?.close();
    await stopBench({ pg, dirs: [dir, dataDir] });
  }
}

module.exports = { main };
