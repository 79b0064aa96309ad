/**
 * One walletd dispatcher in its own process: createDispatcher() from @walletd/server with its
 * own knex pool (createDb), as `walletd serve --roles dispatcher` would run it.
 *
 * It also times the dispatcher's phases without changing it: the compiled dispatcher calls
 * `deliveryStore.claimDue`/`recordAttempts` through the module's exports object and
 * `HttpSender.prototype.post` through the prototype, so wrapping those three records, per round,
 * claim time, send time (claim end -> record start: the Promise.all over the batch), record time,
 * and the idle gap before the next claim (sleep/poll/notification wait).
 */
const { dirname, join, resolve } = require('node:path');
const { performance } = require('node:perf_hooks');
const { DEFAULT_CONFIG, MasterKey, createDb, createLogger } = require('@walletd/core');
// BENCH_WALLETD_DISPATCHER: path of a module exporting a candidate createDispatcher, to A/B it
// against the built one before it lands (it should call deliveryStore/HttpSender from server/dist
// for the phase timings below to see it).
const { createDispatcher } = process.env.BENCH_WALLETD_DISPATCHER
  ? require(resolve(process.env.BENCH_WALLETD_DISPATCHER))
  : require('@walletd/server');
const { serveRunner } = require('./childProtocol');
const { selfCpuMs } = require('./cpu');

const serverDist = dirname(require.resolve('@walletd/server'));
const deliveryStore = require(join(serverDist, 'webhooks', 'dispatcher', 'deliveryStore.js'));
const { HttpSender } = require(join(serverDist, 'webhooks', 'dispatcher', 'httpSender.js'));

const newPhases = () => ({
  claims: [], // ms, claims that returned rows
  claimed: [], // rows per non-empty claim
  emptyClaims: 0,
  emptyClaimMs: 0,
  sends: [], // ms from claim end to record start
  records: [], // ms
  posts: [], // ms per POST
  gaps: [], // ms between the end of one round (or empty claim) and the next claim
  cpuMs: 0, // this process's CPU time since go (or mark)
});
let phases = newPhases();
let cpuStart = 0;
let lastEnd = null;
let roundClaimEnd = 0;

const { claimDue, recordAttempts } = deliveryStore;
const TRACE = process.env.BENCH_CLAIM_TRACE;
const trace = (x) => TRACE && require('node:fs').appendFileSync(TRACE, `${JSON.stringify(x)}\n`);
deliveryStore.claimDue = async (...args) => {
  const t0 = performance.now();
  if (lastEnd !== null) phases.gaps.push(t0 - lastEnd);
  const rows = await claimDue(...args);
  const t1 = performance.now();
  trace({
    k: 'c',
    p: process.pid,
    t: Date.now(),
    ms: +(t1 - t0).toFixed(2),
    n: rows.length,
    capped: rows.capped === true,
    hooks: [...new Set(rows.map((r) => r.webhookId))].length,
  });
  if (rows.length === 0) {
    phases.emptyClaims += 1;
    phases.emptyClaimMs += t1 - t0;
    lastEnd = t1;
  } else {
    phases.claims.push(t1 - t0);
    phases.claimed.push(rows.length);
    roundClaimEnd = t1;
  }
  return rows;
};
// It hands on what recordAttempts returns (the breakers it changed): the dispatcher reads it, and
// without it every record threw inside the dispatcher (a TypeError caught and logged, one per
// record, up to 4 % of the runner's CPU in a backlog drain; bench/README.md, s13-coldstart).
deliveryStore.recordAttempts = async (...args) => {
  const t0 = performance.now();
  phases.sends.push(t0 - roundClaimEnd);
  const changes = await recordAttempts(...args);
  lastEnd = performance.now();
  trace({ k: 'r', p: process.pid, t: Date.now(), ms: +(lastEnd - t0).toFixed(2), n: args[1]?.length });
  phases.records.push(lastEnd - t0);
  return changes;
};
const post = HttpSender.prototype.post;
HttpSender.prototype.post = async function timedPost(...args) {
  const t0 = performance.now();
  try {
    return await post.apply(this, args);
  } finally {
    phases.posts.push(performance.now() - t0);
  }
};

let db;
let dispatcher;

serveRunner({
  async init(config) {
    const settings = {
      ...DEFAULT_CONFIG.webhooks,
      allowCidrs: ['127.0.0.0/8'],
      concurrency: config.concurrency,
      batchSize: config.batchSize,
      pollIntervalMs: config.pollMs,
    };
    const walletdConfig = { ...DEFAULT_CONFIG, source: 'bench', webhooks: settings };
    db = createDb({ url: config.url, poolMax: config.pool, applicationName: `walletd-bench:${process.pid}` });
    await db.raw('select 1');
    dispatcher = createDispatcher(
      {
        config: walletdConfig,
        logger: createLogger({ level: 'silent' }),
        db,
        masterKey: new MasterKey(Buffer.from(config.masterKeyHex, 'hex')),
      },
      settings,
    );
  },
  async go() {
    cpuStart = selfCpuMs();
    dispatcher.start();
  },
  async mark() {
    phases = newPhases();
    lastEnd = null;
    cpuStart = selfCpuMs();
  },
  async stop() {
    phases.cpuMs = selfCpuMs() - cpuStart;
    await dispatcher.stop();
    await db.destroy();
    return phases;
  },
});
