#!/usr/bin/env node
/**
 * Benchmark entry point: `npm run bench -- <suite>` (the npm script builds first).
 * Suites live in their own folder under bench/, are listed in suites.js and export `main(argv)`.
 */
const { SUITES } = require('./suites');
const { enterSmoke } = require('./smoke');

function usage() {
  console.error(
    `usage: npm run bench -- <suite> [--smoke]\n\nsuites:\n  outbox   walletd's webhook outbox against graphile-worker on the same PostgreSQL\n  indexer  the EVM detector on synthetic mainnet-like blocks against the JSON.parse floor\n  utxo     the bitcoin detector on synthetic 1.5 MB blocks against the floor of parsing them\n  follower the follower's catch-up on an anvil devnet (empty blocks, blocks of 400 Transfer logs) against fetching the blocks alone\n  api      walletd's authenticated reads against a plain node:http + pg server doing the same lookups\n  api-ab   walletd builds (or settings, BENCH_AB) against each other: CPU per request at a fixed rate, alternating rounds\n  api-inprocess two server builds' Express apps in one process, interleaved bursts: CPU per request (BENCH_INPROC)\n  solana   the Solana detector on the recorded mainnet block and synthetic 2-3 MB blocks against the JSON.parse floor, and the follower's catch-up through the litesvm adapter\n  polkadot the Polkadot detector on the recorded mainnet block against decoding its events alone, and the follower's catch-up on chopsticks\n  scale    each read and indexer round query on a seeded history of 10k, 100k, 1M transfers (p50/p99 per size)\n  coldstart a detect worker's first require of each plugin's detect module: modules, packages, milliseconds\n\nSee bench/README.md for the environment knobs.`,
  );
}

const name = process.argv[2];
// --smoke: tiny sizes, seconds (smoke.js); taken out of the suite's own arguments.
const args = process.argv.slice(3).filter((a) => a !== '--smoke');
if (process.argv.includes('--smoke') || process.env.BENCH_SMOKE === '1') enterSmoke(name);
if (!name || !Object.hasOwn(SUITES, name)) {
  usage();
  process.exit(1);
}

SUITES[name]()
  .main(args)
  .then((code) => {
    process.exitCode = code ?? 0;
  })
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  });
