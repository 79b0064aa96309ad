/**
 * One graphile-worker runner in its own process: `run()` with the `deliver` task (deliverTask.js),
 * its own pg pool (maxPoolSize), LISTEN/NOTIFY plus `pollInterval`, no signal handlers. With
 * `batched`, graphile-worker's own batching is on: a local queue (one query locks up to
 * `localQueue.size` jobs) and completion batching (`completeJobBatchDelay`); without it, both
 * stay at graphile-worker's defaults (off: one fetch and one completion query per job).
 */
const { performance } = require('node:perf_hooks');
const { Logger, run } = require('graphile-worker');
const { serveRunner } = require('./childProtocol');
const { selfCpuMs } = require('./cpu');
const { makeDeliverTask } = require('./deliverTask');

const silent = new Logger(() => () => undefined);
let tasks = []; // ms per task (sign + POST + body)
let failures = 0;
let cpuStart = 0;
let config;
let task;
let runner;

serveRunner({
  async init(c) {
    config = c;
    task = makeDeliverTask({ signingSecret: c.signingSecret, concurrency: c.concurrency });
  },
  async go() {
    cpuStart = selfCpuMs();
    runner = await run({
      connectionString: config.url,
      concurrency: config.concurrency,
      maxPoolSize: config.pool,
      pollInterval: config.pollMs,
      noHandleSignals: true,
      preset: {
        worker: {
          ...(config.batched && config.gwLocalQueue > 1 ? { localQueue: { size: config.gwLocalQueue } } : {}),
          ...(config.batched && config.gwCompleteBatchMs >= 0 ? { completeJobBatchDelay: config.gwCompleteBatchMs } : {}),
        },
      },
      logger: silent,
      taskList: {
        deliver: async (payload) => {
          const t0 = performance.now();
          try {
            await task.deliver(payload);
          } catch (err) {
            failures += 1;
            throw err;
          } finally {
            tasks.push(performance.now() - t0);
          }
        },
      },
    });
  },
  async mark() {
    tasks = [];
    failures = 0;
    cpuStart = selfCpuMs();
  },
  async stop() {
    const cpuMs = selfCpuMs() - cpuStart;
    await runner.stop();
    await task.close();
    return { tasks, failures, cpuMs };
  },
});
