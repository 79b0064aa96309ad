import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configSchema } from '@walletd/core';

/**
 * docs/reference/ is generated from the built packages (`npm run docs`): a change to the OpenAPI
 * document, an error code, an event schema or a config key that is not regenerated fails here,
 * so the reference never says what the code no longer does. Run by plain Node, as `npm run docs`
 * runs it (the generator is an ES module).
 */
const ROOT = join(__dirname, '..', '..', '..');
const SCRIPT = join(ROOT, 'scripts', 'docs-reference.mjs');
const REFERENCE = join(ROOT, 'docs', 'reference');

const generator = (...args: string[]) => spawnSync(process.execPath, [SCRIPT, ...args], { cwd: ROOT, encoding: 'utf8' });

describe('generated reference pages', () => {
  it('every committed page is what the code makes now', () => {
    const run = generator('--check');
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it('a page that differs from the code is named as stale', () => {
    const dir = mkdtempSync(join(tmpdir(), 'walletd-reference-'));
    try {
      cpSync(REFERENCE, dir, { recursive: true });
      const errors = join(dir, 'errors.md');
      writeFileSync(errors, readFileSync(errors, 'utf8').replace(/^\| `rate_limited` .*\n/m, ''));
      const run = generator('--check', '--dir', dir);
      expect(run.status).toBe(1);
      expect(run.stderr).toContain('errors.md');
      expect(run.stderr).not.toContain('api.md');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('every key of the config schema is explained in the operator and user docs', () => {
    const prose = ['operate', 'guide']
      .flatMap((d) => readdirSync(join(ROOT, 'docs', d)).map((f) => readFileSync(join(ROOT, 'docs', d, f), 'utf8')))
      .join('\n');
    // chains[] entries are explained field by field in the one `chains[]` row of the knob table.
    const chainsRow = readFileSync(join(ROOT, 'docs', 'operate', 'configuration.md'), 'utf8')
      .split('\n')
      .find((l) => l.startsWith('| `chains[]`'));
    expect(chainsRow).toBeDefined();
    type Node = { properties?: Record<string, Node>; items?: Node; type?: unknown };
    const keys = (s: Node, path: string): string[] =>
      Object.entries(s.properties ?? {}).flatMap(([name, p]) => {
        if (name === '$schema') return [];
        const key = path ? `${path}.${name}` : name;
        if (p.properties && p.type === 'object') return keys(p, key);
        return [key, ...(p.items?.properties ? keys(p.items, `${key}[]`) : [])];
      });
    const all = keys(configSchema as Node, '');
    expect(all.length).toBeGreaterThan(90);
    const unexplained = all.filter((key) =>
      key.startsWith('chains[].') ? !chainsRow?.includes(key.split('.').at(-1) as string) : !prose.includes(`\`${key}`),
    );
    expect(unexplained).toEqual([]);
  });
});
