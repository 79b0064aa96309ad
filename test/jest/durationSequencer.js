const { readFileSync } = require('node:fs');
const { join, relative } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

/**
 * Slowest files first, so that no worker is left running one long file alone at the end of a run.
 * jest does this from its own cache of last run's durations, but a fresh clone (CI) has none and
 * falls back to file size, which puts a 60 s browser story behind 20 quick unit files. The
 * committed list (seconds per file, `node test/scripts/jest-durations.js <jest --json output>`)
 * fills in for the cache; a file missing from both runs first (jest's rule: unknown may be slow).
 */
const ROOT = join(__dirname, '..', '..');
let committed;
function committedSeconds(path) {
  committed ??= JSON.parse(readFileSync(join(__dirname, 'durations.json'), 'utf8'));
  return committed[relative(ROOT, path).split('\\').join('/')];
}

class DurationSequencer extends Sequencer {
  time(test) {
    const cached = super.time(test);
    if (cached != null) return cached;
    const s = committedSeconds(test.path);
    return s == null ? undefined : s * 1000;
  }
}

module.exports = DurationSequencer;
