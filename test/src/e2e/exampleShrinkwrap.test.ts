import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const REPO = join(__dirname, '..', '..', '..');
const { shrinkwrapOf } = require(join(REPO, 'test', 'scripts', 'example-shrinkwrap.js')) as { shrinkwrapOf(name: string): string };

/**
 * The example plugin ships npm-shrinkwrap.json: its crypto dependency tree at the root lock's
 * versions, the ones `npm ci` caches, so the packed example installs offline in a fresh clone
 * (test/src/harness/examplePlugin.ts). A lock or dependency change without regenerating it fails here.
 */
describe('examples/plugin-litecoin/npm-shrinkwrap.json', () => {
  it('is the root package-lock tree of the example dependencies (node test/scripts/example-shrinkwrap.js)', () => {
    const shipped = readFileSync(join(REPO, 'examples', 'plugin-litecoin', 'npm-shrinkwrap.json'), 'utf8');
    expect(shipped).toBe(shrinkwrapOf('plugin-litecoin'));
    const { packages } = JSON.parse(shipped) as { packages: Record<string, { version?: string; integrity?: string }> };
    expect(Object.keys(packages)).toEqual(
      expect.arrayContaining(['node_modules/bitcoinjs-lib', 'node_modules/bip32', 'node_modules/tiny-secp256k1']),
    );
    for (const [path, entry] of Object.entries(packages)) if (path) expect(entry.integrity).toMatch(/^sha512-/);
  });
});
