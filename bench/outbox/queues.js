/**
 * The outbox bench's systems under test: their runner processes (one per walletd dispatcher or
 * graphile-worker runner), and their queues (emptied between scenarios, drained when measured).
 */
const { join } = require('node:path');
const { performance } = require('node:perf_hooks');
const { RunnerProcess } = require('./runnerProcess');

const RUNNER_SCRIPTS = {
  walletd: join(__dirname, 'walletdRunner.js'),
  'graphile-worker': join(__dirname, 'graphileRunner.js'),
  'graphile-worker-batched': join(__dirname, 'graphileRunner.js'),
};

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

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

module.exports = { resetQueues, runnerConfigFor, startRunners, waitDrained };
