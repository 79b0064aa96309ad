import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Issue 44 §5, "done means": no bare `throw new Error(` in shipped code. Every failure walletd
 * raises is a `BaseError` with a code (`codes.ts`); one that cannot happen unless the code is wrong
 * is an `InvariantError` (`invariant.ts`), so a reader sees it is one. Scans the shipped source of
 * every package (not tests, not `dist`, not comments) and fails on any bare throw outside the
 * paths listed below, each with why.
 */
const ROOT = join(__dirname, '..', '..', '..');
const SCANNED = ['plugin-kit/src', 'core/src', 'schemas/src', 'server/src', 'indexer/src', 'devchains/src', 'receiver/src', 'console/src'];
const PLUGINS = readdirSync(join(ROOT, 'plugins'), { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => `plugins/${e.name}/src`);
const EXAMPLES = readdirSync(join(ROOT, 'examples'), { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => `examples/${e.name}/src`);

/** Files let off the rule, with why. */
const NOT_YET: Record<string, string> = {
  'receiver/src/rawBody.ts':
    'the receiver package has no dependencies, not even the kit: a TypeError tells a caller it passed a parsed body',
};

function sources(dir: string): string[] {
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'dist' || e.name === 'node_modules' ? [] : sources(path);
    return /\.(ts|tsx|js|mjs|cjs)$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The code without comments (string contents stay). */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');

/** `throw new Error(`, `throw Error(` (and the built-in RangeError, TypeError, SyntaxError), across a line break too. */
const BARE_THROW = /\bthrow\s+(new\s+)?(Range|Type|Syntax)?Error\s*\(/g;

function bareThrows(): Record<string, string[]> {
  const found: Record<string, string[]> = {};
  for (const dir of [...SCANNED, ...PLUGINS, ...EXAMPLES]) {
    for (const file of sources(join(ROOT, dir))) {
      const text = code(readFileSync(file, 'utf8'));
      const hits = [...text.matchAll(BARE_THROW)].map((m) => {
        const line = text.slice(0, m.index).split('\n').length;
        return `${line}: ${text.split('\n')[line - 1]?.trim()}`;
      });
      if (hits.length) found[relative(ROOT, file)] = hits;
    }
  }
  return found;
}

const listed = (file: string) => Object.keys(NOT_YET).find((p) => (p.endsWith('/') ? file.startsWith(p) : file === p));

test('shipped code throws no bare Error outside the listed paths (typed BaseErrors; invariants as InvariantError)', () => {
  const found = bareThrows();
  const unexpected = Object.fromEntries(Object.entries(found).filter(([f]) => !listed(f)));
  expect(unexpected).toEqual({});
});

test('the scan sees a bare throw, across a line break too, and not one in a comment', () => {
  expect(code('if (x) throw new Error(`no`);').match(BARE_THROW)).toHaveLength(1);
  expect(code('throw new Error(\n  `no`,\n);').match(BARE_THROW)).toHaveLength(1);
  expect(code('throw Error("no")').match(BARE_THROW)).toHaveLength(1);
  expect(code('// throw new Error(x)\n/* throw new Error(y) */').match(BARE_THROW)).toBeNull();
  expect(code("throw new RangeError('x'); throw new TypeError('y')").match(BARE_THROW)).toHaveLength(2);
  expect(code("throw new BaseError('input_invalid', 'no'); throw new InvariantError('no')").match(BARE_THROW)).toBeNull();
});
