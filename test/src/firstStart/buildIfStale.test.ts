import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = join(__dirname, '..', '..', '..');
const SCRIPT = pathToFileURL(join(ROOT, 'scripts', 'build-if-stale.mjs')).href;

/** consoleStale(root) of scripts/build-if-stale.mjs, in a child process (an ES module). */
const stale = (root: string): boolean =>
  JSON.parse(
    execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { consoleStale } from '${SCRIPT}'; console.log(JSON.stringify(consoleStale(${JSON.stringify(root)})))`,
      ],
      {
        encoding: 'utf8',
      },
    ),
  );

function file(root: string, path: string, secondsAgo: number) {
  const p = join(root, path);
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, path);
  const at = Date.now() / 1000 - secondsAgo;
  utimesSync(p, at, at);
}

/**
 * Issue 47 §5: `npm start` built everything on every start (tsc -b, then vite over the console's
 * pages). It now builds at install (`prepare`), and a start runs `tsc -b` (incremental) and
 * rebuilds the console only when one of its inputs is newer than its output.
 */
describe('npm start builds only what changed', () => {
  it('builds at install and starts through build-if-stale, not a full build', () => {
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(scripts.prepare).toBe('npm run build');
    expect(scripts.start).toBe('node scripts/build-if-stale.mjs && node server/dist/cli/main.js serve');
  });

  it('rebuilds the console when its output is missing or older than a source, a setting or the schemas it imports', () => {
    const root = mkdtempSync(join(tmpdir(), 'walletd-stale-'));
    for (const p of ['console-ui/src/pages/Overview.tsx', 'console-ui/index.html', 'console-ui/vite.config.ts', 'schemas/dist/index.js'])
      file(root, p, 100);
    expect(stale(root)).toBe(true); // never built
    file(root, 'console-ui/dist/index.html', 50);
    expect(stale(root)).toBe(false);
    file(root, 'console-ui/src/pages/Overview.tsx', 10);
    expect(stale(root)).toBe(true);
    file(root, 'console-ui/dist/index.html', 5);
    expect(stale(root)).toBe(false);
    file(root, 'schemas/dist/index.js', 1);
    expect(stale(root)).toBe(true);
  });
});
