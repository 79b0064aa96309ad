import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const REPO = join(__dirname, '..', '..', '..');

export interface InstalledPlugin {
  /** The walletd-like install folder: `<dir>/node_modules/<package>`. */
  dir: string;
  /** What walletd needs in NODE_PATH to `require` the package by name. */
  nodePath: string;
  /** The packed tarball's file name (`walletd-plugin-litecoin-0.1.0.tgz`). */
  tarball: string;
  /** The installed package's entry, required the way walletd requires it. */
  load<T>(): T;
  remove(): void;
}

/**
 * npm with none of the settings `npm test` passes its scripts (npm_config_*): the example is its
 * own project, not a workspace of this one.
 */
function npm(args: string[], cwd: string): string {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_')));
  return execFileSync('npm', args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/**
 * An example plugin as a chain team ships it: `npm pack` in `examples/<name>` (its `prepack`
 * builds it with its own tsconfig), then `npm install --offline` of the tarball into a fresh folder
 * standing for a walletd install. The kit is a peer dependency: in a real install it is walletd's
 * own `@walletd/plugin-kit` beside the plugin; here that is this checkout's kit, linked in (one
 * copy of the contract and of `BaseError` for walletd and the plugin). Nothing reaches a registry.
 */
export function packAndInstallExample(name: string): InstalledPlugin {
  const source = join(REPO, 'examples', name);
  const pkg = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8')) as { name: string };
  const dir = mkdtempSync(join(tmpdir(), 'walletd-install-'));
  // The JSON follows whatever the prepack build printed.
  const out = npm(['pack', '--json', '--pack-destination', dir], source);
  const packed = JSON.parse(out.slice(out.search(/^\[/m))) as { filename: string }[];
  const tarball = (packed[0] as { filename: string }).filename;
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'walletd-install', private: true }));
  npm(['install', '--offline', '--no-audit', '--no-fund', '--legacy-peer-deps', `./${tarball}`], dir);
  mkdirSync(join(dir, 'node_modules', '@walletd'), { recursive: true });
  symlinkSync(join(REPO, 'plugin-kit'), join(dir, 'node_modules', '@walletd', 'plugin-kit'), 'dir');
  const nodePath = join(dir, 'node_modules');
  return {
    dir,
    nodePath,
    tarball,
    load: <T>() => require(join(nodePath, pkg.name)) as T,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
