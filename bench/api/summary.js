/**
 * The table a history run (BENCH_API_TRANSFERS) ends with: per endpoint and size, walletd's and the
 * baseline's latency and CPU per request, their ratio, and walletd's p50 and p99 divided by its own at
 * the first size, so "within 2x of its 10k time" is a ratio within one run.
 */
const ms = (v) => (v === null || v === undefined ? '?' : v.toFixed(2));
const ratio = (a, b) => (a === null || b === null || !b ? '?' : `${(a / b).toFixed(2)}x`);

/** p50 / p99, and how many requests got no answer in time when some did not (an overloaded run). */
const lat = (x) => `${ms(x.p50)} / ${ms(x.p99)}${x.unanswered ? ` (${x.unanswered} unanswered)` : ''}`;

function historyTable(rows) {
  const lines = [
    '| endpoint | transfers | walletd p50 / p99 ms | baseline p50 / p99 ms | CPU ms/req walletd / baseline | CPU ratio | walletd p50 / p99 ÷ first size |',
    '| :-- | --: | --: | --: | --: | --: | --: |',
  ];
  const first = new Map();
  for (const r of rows) {
    if (!first.has(r.label)) first.set(r.label, r.ours);
    const f = first.get(r.label);
    lines.push(
      `| \`${r.label}\` | ${r.size.toLocaleString('en')} | ${lat(r.ours)} | ${lat(r.base)} | ${ms(r.ours.cpuMs)} / ${ms(r.base.cpuMs)} | ${ratio(r.ours.cpuMs, r.base.cpuMs)} | ${ratio(r.ours.p50, f.p50)} / ${ratio(r.ours.p99, f.p99)} |`,
    );
  }
  return lines.join('\n');
}

module.exports = { historyTable };
