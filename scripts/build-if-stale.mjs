/**
 * What `npm start` builds before it serves: `tsc -b` (incremental: about a second when nothing
 * changed, the packages that changed otherwise), then the console's pages only when one of their
 * inputs is newer than the built `console-ui/dist/index.html` (vite rebuilds everything each time,
 * ~6 s; `npm run build` always does). `npm install` builds everything once (the root `prepare`).
 *
 *   node scripts/build-if-stale.mjs
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The newest modification time under `path` (a file or a folder, recursively), 0 when absent. */
export function newestMtime(path) {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

/** The console's inputs: its sources and settings, and the built schemas it imports. */
export const consoleInputs = (root) =>
  ['src', 'index.html', 'vite.config.ts', 'tsconfig.json', 'package.json']
    .map((p) => join(root, 'console-ui', p))
    .concat(join(root, 'schemas', 'dist'));

/** Whether the console's pages must be built: no output yet, or an input newer than it. */
export function consoleStale(root) {
  const built = newestMtime(join(root, 'console-ui', 'dist', 'index.html'));
  return built === 0 || consoleInputs(root).some((p) => newestMtime(p) > built);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const npx = (args) => execFileSync(process.platform === 'win32' ? 'npx.cmd' : 'npx', args, { cwd: ROOT, stdio: 'inherit' });
  npx(['tsc', '-b']);
  if (consoleStale(ROOT)) execFileSync('npm', ['run', 'build', '--workspace', '@walletd/console-ui'], { cwd: ROOT, stdio: 'inherit' });
  else console.log('console-ui: up to date (npm run build rebuilds it anyway)');
}
