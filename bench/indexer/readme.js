const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const START = '<!-- indexer:results:start -->';
const END = '<!-- indexer:results:end -->';

/** Rewrites only the figures block of the indexer section in bench/README.md. */
function writeIndexerFigures(text) {
  const file = join(__dirname, '..', 'README.md');
  const readme = readFileSync(file, 'utf8');
  const i = readme.indexOf(START);
  const j = readme.indexOf(END);
  if (i < 0 || j < 0) return;
  writeFileSync(file, `${readme.slice(0, i + START.length)}\n${text}\n${readme.slice(j)}`);
}

module.exports = { writeIndexerFigures };
