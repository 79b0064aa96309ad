import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const REPO = join(__dirname, '..', '..', '..');

type LockEntry = Record<string, unknown>;

/** The install folder's package-lock: the plugin from `spec`, its shrinkwrapped tree under it. */
function installLock(source: string, name: string, spec: string) {
  const shrinkwrap = JSON.parse(readFileSync(join(source, 'npm-shrinkwrap.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const { '': root, ...tree } = shrinkwrap.packages;
  const at = `node_modules/${name}`;
  return {
    name: 'walletd-install',
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': { name: 'walletd-install', dependencies: { [name]: spec } },
      [at]: { ...root, name: undefined, resolved: spec },
      ...Object.fromEntries(Object.entries(tree).map(([path, entry]) => [`${at}/${path}`, entry])),
    },
  };
}

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
 * builds it with its own tsconfig), then installed from the tarball into a fresh folder standing
 * for a walletd install, offline: nothing reaches a registry.
 *
 * Why `npm ci --offline` over a lock written here, not `npm install --offline <tarball>`: npm
 * resolves a tarball's dependencies from the registry's full metadata documents, which the root
 * `npm ci` never fetches (it reads the abbreviated ones), so in a fresh clone that install fails
 * with ENOTCACHED; and it would pick the newest version in each transitive range, maybe one the
 * cache never held. (A registry install honours the `npm-shrinkwrap.json` the example ships; a
 * tarball install does not read it.) The lock written here is the one an online
 * `npm install <tarball>` gives: the plugin, and under it the tree of its `npm-shrinkwrap.json`
 * (the root package-lock's versions, `test/scripts/example-shrinkwrap.js`), whose tarballs and
 * abbreviated metadata the root `npm ci` put in the npm cache.
 *
 * The kit is a peer dependency: in a real install it is walletd's own `@walletd/plugin-kit`
 * beside the plugin; here that is this checkout's kit, linked in (one copy of the contract and of
 * `BaseError` for walletd and the plugin).
 */
export function packAndInstallExample(name: string): InstalledPlugin {
  const source = join(REPO, 'examples', name);
  const pkg = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8')) as { name: string };
  const dir = mkdtempSync(join(tmpdir(), 'walletd-install-'));
  // The JSON follows whatever the prepack build printed.
  const out = npm(['pack', '--json', '--pack-destination', dir], source);
  const packed = JSON.parse(out.slice(out.search(/^\[/m))) as { filename: string }[];
  const tarball = (packed[0] as { filename: string }).filename;
  const spec = `file:${tarball}`;
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'walletd-install', private: true, dependencies: { [pkg.name]: spec } }));
  writeFileSync(join(dir, 'package-lock.json'), JSON.stringify(installLock(source, pkg.name, spec)));
  npm(['ci', '--offline', '--no-audit', '--no-fund', '--legacy-peer-deps'], dir);
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
