const { performance } = require('node:perf_hooks');
const { createDetectPool } = require('@walletd/indexer');

/**
 * Blocks/s through the Piscina detect pool with 1 and 2 threads. `task(i)` makes the i-th task
 * (with its own copy of the raw bytes: they are transferred to the worker). Each pool is warmed
 * with `warmPerThread` tasks per thread before `blocks` tasks are timed.
 */
async function poolRates(blocks, warmPerThread, task) {
  const rates = {};
  for (const threads of [1, 2]) {
    const pool = createDetectPool(threads);
    const run = (n) => Promise.all(Array.from({ length: n }, (_, i) => pool.detect(task(i))));
    await run(threads * warmPerThread);
    const t = performance.now();
    await run(blocks);
    rates[threads] = blocks / ((performance.now() - t) / 1000);
    await pool.close();
  }
  return rates;
}

module.exports = { poolRates };
