import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * Every bench suite runs end to end in its smoke mode (bench/smoke.js: tiny sizes, seconds), as
 * `node bench/run.js <suite> --smoke`, in plain Node as `npm run bench` runs it: a refactor that
 * breaks a bench fails here (on main five of eleven failed at start and nothing noticed: issue 44
 * §8). What is checked is structure (exit 0, a Markdown table of figures printed), never timing.
 */
const ROOT = join(__dirname, '..', '..', '..');
const { SUITES } = require(join(ROOT, 'bench', 'suites.js')) as { SUITES: Record<string, unknown> };
const { SMOKE } = require(join(ROOT, 'bench', 'smoke.js')) as { SMOKE: Record<string, Record<string, string>> };

/** A Markdown table of figures (a row and its rule), what most suites print. */
const TABLE = [/^\|.*\|\s*$/m, /^\|(\s*:?-+:?\s*\|)+\s*$/m];
/** The suites that print figure lines of their own instead. */
const FIGURES: Record<string, RegExp[]> = {
  api: [/^\/v1\/me +baseline +\d+ req\/s p50 [\d.]+ ms p99 [\d.]+ ms .*\| walletd +\d+ req\/s/m],
  'api-ab': [/^\/v1\/me +current +cpu µs\/req median [\d.]+/m],
  'api-inprocess': [/^\/v1\/me +current +cpu µs\/req \(server \+ client\) median [\d.]+/m],
  outbox: [/^scenario +runners µs\/ev/m, /^walletd backlog x1 +\d+/m],
};

test('the benches name the commit they measure (a checkout of this repository)', () => {
  const { sourceState } = require(join(ROOT, 'bench', 'sourceState.js')) as { sourceState(): string };
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim();
  expect(head).toMatch(/^[0-9a-f]{7,}$/);
  expect(sourceState().split(' ')[0]).toBe(head);
});

test('every suite has smoke sizes', () => {
  expect(Object.keys(SMOKE).sort()).toEqual(Object.keys(SUITES).sort());
});

describe.each(Object.keys(SUITES))('bench %s --smoke', (suite) => {
  it('exits 0 and prints its figures', () => {
    const run = spawnSync(process.execPath, ['--no-deprecation', join(ROOT, 'bench', 'run.js'), suite, '--smoke'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 170_000,
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, BENCH_SMOKE: '1', LOG_LEVEL: 'warn' },
    });
    const said = `${run.stdout}\n${run.stderr}`.slice(-4000);
    expect({ status: run.status, signal: run.signal, said: run.status === 0 ? '' : said }).toEqual({ status: 0, signal: null, said: '' });
    for (const figures of FIGURES[suite] ?? TABLE) expect(run.stdout).toMatch(figures);
  }, 180_000);
});
