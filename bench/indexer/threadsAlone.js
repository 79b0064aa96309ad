/**
 * The ceiling for the pool's x2/x1 on this machine: `detect()` in 1 and in 2 plain worker threads
 * that hold their own copies of the blocks, so the main thread does nothing per block (no copy of
 * fetched bytes, no task or result messages). What the pool loses against it is the main thread's
 * share of the cores and the messaging; what this loses against 2.0x is the machine (V8's helper
 * threads, the kernel, a neighbour on the host). Issue 17.
 */
const { Worker, isMainThread, parentPort, workerData } = require('node:worker_threads');

if (!isMainThread) {
  const { detect } = require('@walletd/plugin-evm');
  const { SharedAddressView } = require('@walletd/indexer');
  const { blocks, table, tokens, native } = workerData;
  const ctx = {
    chain: 'ethereum',
    network: 'mainnet',
    native,
    tokens: new Map(tokens.map((t) => [t.matchKey, t])),
    watched: new SharedAddressView(table),
  };
  let next = 0;
  // Each message asks for n blocks; the reply is how many transfers they held (so the work is used).
  parentPort.on('message', (n) => {
    let found = 0;
    for (let i = 0; i < n; i++) found += detect(blocks[next++ % blocks.length], ctx).transfers.length;
    parentPort.postMessage(found);
  });
} else {
  /** Blocks/s of 1 and 2 such threads, taking turns over `rounds` rounds of `perRound` blocks per thread. */
  async function threadsAloneRates(blocks, table, tokens, native, perRound, rounds = 6, warm = 20) {
    const start = () => new Worker(__filename, { workerData: { blocks, table, tokens, native } });
    const sets = { 1: [start()], 2: [start(), start()] };
    const ask = (w, n) =>
      new Promise((resolve) => {
        w.once('message', resolve);
        w.postMessage(n);
      });
    try {
      for (const w of [...sets[1], ...sets[2]]) await ask(w, warm);
      const elapsed = { 1: 0, 2: 0 };
      for (let r = 0; r < rounds; r++) {
        for (const threads of [1, 2]) {
          const t = performance.now();
          await Promise.all(sets[threads].map((w) => ask(w, perRound)));
          elapsed[threads] += performance.now() - t;
        }
      }
      return { 1: (perRound * rounds) / (elapsed[1] / 1000), 2: (2 * perRound * rounds) / (elapsed[2] / 1000) };
    } finally {
      await Promise.all([...sets[1], ...sets[2]].map((w) => w.terminate()));
    }
  }
  module.exports = { threadsAloneRates };
}
