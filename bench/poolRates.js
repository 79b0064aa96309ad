const { performance } = require('node:perf_hooks');
// A catching-up follower's window: `indexer.pipelineDepth`'s default.
const { createDetectPool, DEFAULT_PIPELINE_DEPTH: FOLLOWER_WINDOW } = require('@walletd/indexer');

/**
 * Blocks/s through the Piscina detect pool with 1 and 2 threads. `task(i)` makes the i-th task
 * (with its own copy of the raw bytes: they are transferred to the worker, as the follower hands
 * over the bytes it fetched). The pool is fed as a catching-up follower feeds it: at most `window`
 * blocks in flight, the next one made when one comes back. (Submitting a whole round at once kept
 * the main thread in one long synchronous loop of copies while the threads sat idle after their
 * first block, which cost the 2-thread pool more than the 1-thread one: issue 17.)
 * Both pools are started and warmed with `warmPerThread` tasks per thread, then they take turns
 * over `rounds` rounds of blocks/rounds tasks each: a noisy second (a neighbour, a collection
 * elsewhere) lands on both, where one pool timed after the other scattered the x2/x1 ratio from
 * 1.33 to 1.77 between runs of one commit.
 */
async function poolRates(blocks, warmPerThread, task, rounds = 6, window = FOLLOWER_WINDOW) {
  const pools = { 1: createDetectPool(1), 2: createDetectPool(2) };
  const run = async (pool, n) => {
    let next = 0;
    const lane = async () => {
      while (next < n) await pool.detect(task(next++));
    };
    await Promise.all(Array.from({ length: Math.min(window, n) }, lane));
  };
  try {
    for (const threads of [1, 2]) await run(pools[threads], threads * warmPerThread);
    const per = Math.max(1, Math.round(blocks / rounds));
    const elapsed = { 1: 0, 2: 0 };
    for (let r = 0; r < rounds; r++) {
      for (const threads of [1, 2]) {
        const t = performance.now();
        await run(pools[threads], per);
        elapsed[threads] += performance.now() - t;
      }
    }
    return { 1: (per * rounds) / (elapsed[1] / 1000), 2: (per * rounds) / (elapsed[2] / 1000) };
  } finally {
    await Promise.all([pools[1].close(), pools[2].close()]);
  }
}

module.exports = { poolRates };
