const { execFileSync } = require('node:child_process');
const { join } = require('node:path');

/** The commit measured, and whether the code under test differs from it. */
function sourceState() {
  const root = join(__dirname, '..');
  try {
    const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const head = git('rev-parse', '--short', 'HEAD').trim();
    // Porcelain lines are `XY path`: keep their leading blanks (a trim would eat the status column).
    const dirty = git('status', '--porcelain', '--', 'core/src', 'server/src')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.slice(3))
      .filter((f) => !f.endsWith('.test.ts'));
    if (dirty.length === 0) return head;
    const shown = dirty.slice(0, 6).join(', ');
    return `${head} + uncommitted changes to ${shown}${dirty.length > 6 ? ` and ${dirty.length - 6} more files` : ''}`;
  } catch {
    return 'unknown (no git)';
  }
}

module.exports = { sourceState };
