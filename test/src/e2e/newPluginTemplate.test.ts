import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registerPlugins } from '@walletd/core';
import type { ChainPlugin } from '@walletd/plugin-kit';

const REPO = join(__dirname, '..', '..', '..');

/**
 * `npm run new-plugin -- <chain>` (examples/new-plugin.js): the template a chain team starts from
 * is the litecoin example renamed, and what it writes builds on its own and registers with walletd
 * as a chain walletd never heard of.
 */
describe('npm run new-plugin: a new chain plugin from the example', () => {
  const dir = mkdtempSync(join(tmpdir(), 'walletd-new-plugin-'));
  const out = join(dir, 'plugin-dogelite');
  const script = (args: string[]) => spawnSync(process.execPath, [join(REPO, 'examples', 'new-plugin.js'), ...args], { encoding: 'utf8' });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('copies the example with the package and chain renamed, and no build output', () => {
    const r = script(['dogelite', '--out', out]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('walletd-plugin-dogelite');
    expect(JSON.parse(readFileSync(join(out, 'package.json'), 'utf8'))).toMatchObject({
      name: 'walletd-plugin-dogelite',
      peerDependencies: { '@walletd/plugin-kit': expect.any(String) },
    });
    expect(readFileSync(join(out, 'src', 'networks.ts'), 'utf8')).toContain("export const CHAIN = 'dogelite';");
    expect(existsSync(join(out, 'dist'))).toBe(false);
  });

  it('refuses a name walletd would refuse, and an existing folder', () => {
    expect(script(['Doge Lite']).status).toBe(2);
    expect(script(['dogelite', '--out', out]).status).toBe(1);
  });

  it('builds with its own tsconfig and registers with walletd as the chain it names', () => {
    // The copy resolves the kit and @types/node as an installed walletd would provide them.
    symlinkSync(join(REPO, 'node_modules'), join(out, 'node_modules'), 'dir');
    execFileSync(process.execPath, [join(REPO, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(out, 'tsconfig.json')], {
      stdio: 'pipe',
    });
    const plugin = (require(join(out, 'dist', 'index.js')) as { createPlugin(): ChainPlugin }).createPlugin();
    const registry = registerPlugins([plugin]);
    expect(registry.chainTable().chains()).toEqual(['dogelite']);
    expect(registry.forChain('dogelite')?.name).toBe('walletd-plugin-dogelite');
    expect(registry.chainTable().nativeAsset('dogelite', 'regtest')).toMatchObject({ key: 'dogelite:regtest:ltc', decimals: 8 });
  }, 60_000);
});
