const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

/** Rewrites only the figures block `<!-- <name>:results:start/end -->` of bench/README.md. */
function writeFigures(name, text) {
  // A smoke run's numbers measure nothing (smoke.js): the README keeps the last real run's.
  if (process.env.BENCH_SMOKE === '1') return;
  const start = `<!-- ${name}:results:start -->`;
  const end = `<!-- ${name}:results:end -->`;
  const file = join(__dirname, 'README.md');
  const readme = readFileSync(file, 'utf8');
  const i = readme.indexOf(start);
  const j = readme.indexOf(end);
  if (i < 0 || j < 0) return;
  writeFileSync(file, `${readme.slice(0, i + start.length)}\n${text}\n${readme.slice(j)}`);
}

module.exports = { writeFigures };
