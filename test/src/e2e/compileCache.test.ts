import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WALLETD_MAIN } from '@walletd/test-harness';

/**
 * The `walletd` command keeps Node's compile cache beside its code (server/cli/compileCache.ts),
 * never in the temp directory another local user could write, and follows Node's own switches.
 */
const BESIDE_CODE = join(WALLETD_MAIN, '..', '..', '..', '.compile-cache');
const scratch: string[] = [];
const dir = () => {
  const d = mkdtempSync(join(tmpdir(), 'walletd-cc-'));
  scratch.push(d);
  return d;
};
afterAll(() => {
  for (const d of scratch) rmSync(d, { recursive: true, force: true });
});

const run = (env: Record<string, string | undefined>) => {
  const base = { ...process.env };
  delete base.NODE_COMPILE_CACHE;
  delete base.NODE_DISABLE_COMPILE_CACHE;
  const r = spawnSync(process.execPath, [WALLETD_MAIN, '--version'], { env: { ...base, ...env }, encoding: 'utf8' });
  expect(r.status).toBe(0);
  return r;
};
const entries = (d: string) => (existsSync(d) ? readdirSync(d, { recursive: true }).length : 0);

it('keeps the cache beside the code by default, not in the temp directory', () => {
  const tmp = dir();
  run({ TMPDIR: tmp });
  expect(existsSync(join(tmp, 'node-compile-cache'))).toBe(false);
  const versions = readdirSync(BESIDE_CODE).filter((v) => v.startsWith(process.version));
  expect(versions.length).toBeGreaterThan(0);
});

it('writes it where NODE_COMPILE_CACHE says, and nowhere with NODE_DISABLE_COMPILE_CACHE=1', () => {
  const chosen = dir();
  run({ NODE_COMPILE_CACHE: chosen });
  expect(entries(chosen)).toBeGreaterThan(1);
  const off = dir();
  run({ NODE_COMPILE_CACHE: off, NODE_DISABLE_COMPILE_CACHE: '1' });
  expect(entries(off)).toBe(0);
});
