/**
 * BENCH_SCALE_ARCHIVE=1 (issue 48 §5): the longest wait of an API read while `walletd archive-month`
 * archives January 2025 of `transfers` (at 1M seeded transfers: 892,800 rows, 3 s apart from
 * 2025-01-01). Two readers run the API's list reads (`listTransactions`: the first page, a
 * `walletId=` page) back to back on their own pool, before the archive (a baseline of the same
 * length) and during it; the archive runs on another pool as the command does. What is measured is
 * each read's whole time, so a read blocked by the archive's lock shows as one long read.
 * It runs last: the month is detached afterwards.
 */
const { performance } = require('node:perf_hooks');
const { DEFAULT_CONFIG, createDb } = require('@walletd/core');
const { archiveMonth, listTransactions, loadPlugins } = require('@walletd/server');

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

/** Reads until `until()` says stop; each read's ms. */
async function readLoop(db, scope, plugins, until) {
  const ms = [];
  const pages = [{}, { walletId: scope.walletIds[3] }];
  for (let i = 0; !until(); i++) {
    const t0 = performance.now();
    await listTransactions(db, DEFAULT_CONFIG, plugins, { companyId: scope.companyId, walletIds: null, limit: 50, ...pages[i % 2] });
    ms.push(performance.now() - t0);
  }
  return ms;
}

const summary = (ms) => ({ reads: ms.length, p50: pct(ms, 50), p99: pct(ms, 99), max: Math.max(0, ...ms) });

async function archiveReadWait(url, scope, { readers = 2, month = '2025-01' } = {}) {
  const plugins = loadPlugins();
  const reads = createDb({ url, poolMax: readers });
  const archiving = createDb({ url, poolMax: 2 });
  try {
    // A month is archived once final: at small sizes the seed's newest (pending) rows fall in
    // January, so they are confirmed first (at 1M they are in February and this changes nothing).
    const settled = await reads.raw(
      `update transfers set status = 'confirmed', confirmations = 12, block_number = coalesce(block_number, 0)
        where status = 'pending' and created_at < '2025-02-01'`,
    );
    const rows = Number((await reads.raw(`select count(*)::int as n from transfers_y2025m01`)).rows[0].n);
    // A 10 s baseline first: the archive's own length is not known before it runs.
    const baseUntil = performance.now() + 10_000;
    const base = (
      await Promise.all(Array.from({ length: readers }, () => readLoop(reads, scope, plugins, () => performance.now() > baseUntil)))
    ).flat();
    let done = false;
    const t0 = performance.now();
    const archive = archiveMonth(archiving, { month, tables: ['transfers'], lockTimeoutMs: 60_000 }).finally(() => {
      done = true;
    });
    const during = Promise.all(Array.from({ length: readers }, () => readLoop(reads, scope, plugins, () => done)));
    const result = await archive;
    const archiveSeconds = (performance.now() - t0) / 1000;
    return {
      rows,
      settled: settled.rowCount,
      archiveSeconds,
      totals: result.totals,
      before: summary(base),
      during: summary((await during).flat()),
    };
  } finally {
    await reads.destroy();
    await archiving.destroy();
  }
}

const archiveLine = (r) =>
  `archive-month of ${r.rows.toLocaleString('en')} transfers (${r.settled} pending confirmed first): ${r.archiveSeconds.toFixed(1)} s; list reads before: ${r.before.reads}, ` +
  `p50 ${r.before.p50.toFixed(2)} / p99 ${r.before.p99.toFixed(2)} / max ${r.before.max.toFixed(1)} ms; during: ${r.during.reads}, ` +
  `p50 ${r.during.p50.toFixed(2)} / p99 ${r.during.p99.toFixed(2)} / longest ${r.during.max.toFixed(1)} ms`;

module.exports = { archiveReadWait, archiveLine };
