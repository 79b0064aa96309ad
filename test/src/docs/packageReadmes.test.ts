import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Issue 44 §6: each package's README holds its details, so it must name the files that are there.
 * A file named in backticks with a folder (`src/verbs/build.ts`) must exist relative to the
 * package, its `src/` or the repository; a bare name (`build.ts`) must be some file's name in the package.
 */
const root = join(__dirname, '..', '..', '..');
const SOURCE = /`([A-Za-z0-9_.@/-]+\.(?:ts|tsx|js|cjs|mjs))`/g;

function packageDirs(): string[] {
  const { workspaces } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { workspaces: string[] };
  const dirs = workspaces.flatMap((w) =>
    w.endsWith('/*')
      ? readdirSync(join(root, w.slice(0, -2)), { withFileTypes: true })
          .filter((d) => d.isDirectory())
          .map((d) => join(w.slice(0, -2), d.name))
      : [w],
  );
  return [...dirs, 'examples/plugin-litecoin'].filter((d) => existsSync(join(root, d, 'README.md')));
}

function fileNames(dir: string, into = new Set<string>()): Set<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'dist' && !entry.name.startsWith('.')) fileNames(join(dir, entry.name), into);
    } else into.add(entry.name);
  }
  return into;
}

/** The files a README names that its package does not have. */
export function missingFiles(pkg: string, text: string): string[] {
  const names = fileNames(join(root, pkg));
  const missing: string[] = [];
  for (const [, path = ''] of text.matchAll(SOURCE)) {
    const found = path.includes('/')
      ? [join(root, pkg, path), join(root, pkg, 'src', path), join(root, path)].some((p) => existsSync(p))
      : names.has(path);
    if (!found) missing.push(path);
  }
  return missing;
}

describe('package READMEs', () => {
  const dirs = packageDirs();

  it('covers every workspace package and the example plugin', () => {
    expect(dirs).toEqual(
      expect.arrayContaining(['server', 'indexer', 'plugins/evm', 'plugins/polkadot', 'test', 'examples/plugin-litecoin']),
    );
  });

  it.each(dirs)('%s/README.md names only files that exist', (pkg) => {
    expect(missingFiles(pkg, readFileSync(join(root, pkg, 'README.md'), 'utf8'))).toEqual([]);
  });

  it('would fail on a file that is not there', () => {
    expect(missingFiles('plugins/evm', 'the old `withdrawals.ts` and `src/evmReader.ts`, and `src/reader.ts`')).toEqual([
      'withdrawals.ts',
      'src/evmReader.ts',
    ]);
  });
});
