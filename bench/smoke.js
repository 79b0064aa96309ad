/**
 * Smoke mode: `node bench/run.js <suite> --smoke` (or BENCH_SMOKE=1): every suite at tiny sizes, a
 * few seconds, so a refactor that breaks a bench fails the tests (test/src/bench/benchSmoke.test.ts)
 * instead of the next person who measures. The figures are not figures (nothing is written to
 * bench/README.md); what is checked is that the suite runs end to end and prints its tables.
 * Each suite's smoke sizes are its own knobs (the BENCH_* variables its header documents); a
 * variable already set in the environment wins.
 */
const SMOKE = {
  outbox: {
    BENCH_EVENTS: '40',
    BENCH_WARMUP: '0',
    BENCH_MODES: 'backlog',
    BENCH_SYSTEMS: 'walletd',
    BENCH_RUNNERS: '1',
    BENCH_DEAD: '0',
    BENCH_FRESH_DEAD: '1',
    BENCH_REPEAT: '1',
  },
  indexer: { BENCH_BLOCKS: '4', BENCH_WATCHED: '1000' },
  utxo: { BENCH_BLOCKS: '2', BENCH_WATCHED: '1000' },
  follower: {
    BENCH_EMPTY_BLOCKS: '8',
    BENCH_EMPTY_ROUNDS: '1',
    BENCH_LOG_BLOCKS: '2',
    BENCH_LOGS: '10',
    BENCH_PAYOUT_BLOCKS: '2',
    BENCH_PAYOUTS: '2',
    BENCH_TRACES: 'off',
    BENCH_DEPTHS: '8',
    BENCH_THREADS: '1',
  },
  solana: {
    BENCH_BLOCKS: '2',
    BENCH_WATCHED: '1000',
    BENCH_TXS: '20',
    BENCH_ENGINE_BLOCKS: '4',
    BENCH_SYNTHETIC_BLOCKS: '2',
    BENCH_THREADS: '1',
  },
  // A history over 20 wallets (past the 16 a scoped key walks one by one), with
  // ten pages of 50 for the page-10 cursor: every endpoint of a history run.
  api: {
    BENCH_SECONDS: '1',
    BENCH_WARMUP: '0',
    BENCH_CONNECTIONS: '2',
    BENCH_CLIENTS: '2',
    BENCH_API_TRANSFERS: '500',
    BENCH_API_WALLETS: '20',
  },
  'api-ab': { BENCH_ROUNDS: '1', BENCH_REQUESTS: '20', BENCH_RATE: '100', BENCH_CONNECTIONS: '2', BENCH_CLIENTS: '2', BENCH_WARMUP: '0' },
  'api-inprocess': { BENCH_BURST: '5', BENCH_BURSTS: '2', BENCH_CONNECTIONS: '2', BENCH_CLIENTS: '2' },
  polkadot: { BENCH_BLOCKS: '2', BENCH_WATCHED: '1000', BENCH_ENGINE_BLOCKS: '2', BENCH_THREADS: '1' },
  scale: { BENCH_SCALE_SIZES: '3000', BENCH_RUNS: '2', BENCH_SCALE_CLAIM: '0' },
  coldstart: { BENCH_RUNS: '1' },
};

const isSmoke = () => process.env.BENCH_SMOKE === '1';

/** Sets the suite's smoke sizes (those the environment does not set already) and BENCH_SMOKE=1. */
function enterSmoke(suite) {
  process.env.BENCH_SMOKE = '1';
  for (const [name, value] of Object.entries(SMOKE[suite] ?? {})) {
    if (process.env[name] === undefined || process.env[name] === '') process.env[name] = value;
  }
}

module.exports = { SMOKE, enterSmoke, isSmoke };
