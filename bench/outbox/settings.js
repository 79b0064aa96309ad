/** The environment knobs of the outbox benchmark, read once, with their defaults. */

const SYSTEMS = ['walletd', 'graphile-worker', 'graphile-worker-batched'];

function int(name, def, min = 0) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min} (got ${JSON.stringify(raw)})`);
  return n;
}

function list(name, def, allowed) {
  const raw = process.env[name];
  const items = (raw === undefined || raw === '' ? def : raw.split(',').map((s) => s.trim())).filter(Boolean);
  for (const item of items) {
    if (allowed && !allowed.includes(String(item))) throw new Error(`${name}: unknown value ${item} (allowed: ${allowed.join(', ')})`);
  }
  return items;
}

function readSettings() {
  const s = {
    /** Measured events per scenario; each event makes exactly one delivery/job. */
    events: int('BENCH_EVENTS', 5000, 1),
    /** Events pushed through before measuring in `live` mode (connections, JIT, caches). */
    warmup: int('BENCH_WARMUP', 200, 0),
    /**
     * live: commit as fast as the producers can while the dispatchers run; paced: the same at
     * BENCH_RATE events/s; backlog: commit everything first, then start the dispatchers.
     */
    modes: list('BENCH_MODES', ['live', 'paced', 'backlog', 'isolation'], ['live', 'paced', 'backlog', 'isolation']),
    /**
     * isolation (walletd only, one dispatcher, paced): the healthy receiver's latency with this
     * many dead receivers (accept, never answer) beside it, one scenario each; 0 is the baseline.
     */
    dead: list('BENCH_DEAD', ['0', '1', '10']).map((n) => {
      const v = Number(n);
      if (!Number.isInteger(v) || v < 0) throw new Error(`BENCH_DEAD: ${n} is not a whole number`);
      return v;
    }),
    /**
     * isolation, fresh (issue 43): the same with this many dead receivers that are new when the
     * measured events start (no warm-up): the first outage window, before any breaker opens. 0 is
     * the baseline of those rows: the same cold dispatcher with the healthy receiver alone.
     */
    freshDead: list('BENCH_FRESH_DEAD', ['0', '1', '10']).map((n) => {
      const v = Number(n);
      if (!Number.isInteger(v) || v < 0) throw new Error(`BENCH_FRESH_DEAD: ${n} is not a whole number`);
      return v;
    }),
    /** Dispatcher / worker processes per scenario. */
    runners: list('BENCH_RUNNERS', ['1', '2']).map((n) => {
      const v = Number(n);
      if (!Number.isInteger(v) || v < 1) throw new Error(`BENCH_RUNNERS: ${n} is not a positive integer`);
      return v;
    }),
    /**
     * graphile-worker runs twice: with its defaults (a fetch and a completion query per job) and
     * `-batched`, with its own batching switched on (local queue + completion batching), the
     * closer match to walletd's claim-a-batch / record-a-batch rounds.
     */
    systems: list('BENCH_SYSTEMS', SYSTEMS, SYSTEMS),
    /** Concurrent producer transactions (one event per transaction). */
    producers: int('BENCH_PRODUCERS', 4, 1),
    /** Events/s across all producers in `paced` mode (keep it below both systems' capacity). */
    rate: int('BENCH_RATE', 250, 1),
    /** walletd webhooks.concurrency and graphile-worker `concurrency`, per runner. */
    concurrency: int('BENCH_CONCURRENCY', 64, 1),
    /** walletd webhooks.batchSize (a round claims min(batchSize, concurrency)). */
    batchSize: int('BENCH_BATCH_SIZE', 100, 1),
    /** walletd webhooks.pollIntervalMs and graphile-worker `pollInterval`. */
    pollMs: int('BENCH_POLL_MS', 500, 1),
    /** Connections per runner: walletd's createDb poolMax and graphile-worker's maxPoolSize. */
    pool: int('BENCH_POOL', 10, 2),
    /** graphile-worker-batched: `localQueue.size`; default concurrency + 1 (graphile-worker's suggested start). */
    gwLocalQueue: int('BENCH_GW_LOCAL_QUEUE', 0, 0),
    /** graphile-worker-batched: `completeJobBatchDelay` in ms (-1 = off). */
    gwCompleteBatchMs: int('BENCH_GW_COMPLETE_BATCH_MS', 0, -1),
    /** A candidate dispatcher module for walletd (see walletdRunner.js); null = @walletd/server's. */
    walletdDispatcher: process.env.BENCH_WALLETD_DISPATCHER || null,
    /** Print the statements PostgreSQL spent the most time in, per scenario (pg_stat_statements). */
    pgStatements: process.env.BENCH_PG_STATEMENTS === '1',
    /** Extra settings for the bench's PostgreSQL, `name=value,name=value` (e.g. auto_explain's, to read plans in its log). */
    pgSettings: Object.fromEntries(
      (process.env.BENCH_PG_SETTINGS ?? '')
        .split(',')
        .filter(Boolean)
        .map((kv) => {
          const at = kv.indexOf('=');
          if (at < 1) throw new Error(`BENCH_PG_SETTINGS: ${kv} is not name=value`);
          return [kv.slice(0, at).trim(), kv.slice(at + 1).trim()];
        }),
    ),
    /**
     * Each (mode, runners) group runs its systems this many times, in alternating order (forward,
     * reversed, …), and a summary gives every system's median: a slow stretch of a shared machine
     * then lands on every system, not on whichever ran in it.
     */
    repeat: int('BENCH_REPEAT', 1, 1),
    /** A scenario that has not delivered everything after this long is reported as timed out. */
    timeoutMs: int('BENCH_TIMEOUT_MS', 180_000, 1000),
  };
  if (s.gwLocalQueue === 0) s.gwLocalQueue = s.concurrency + 1;
  return s;
}

module.exports = { readSettings };
