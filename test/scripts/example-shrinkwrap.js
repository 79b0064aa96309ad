#!/usr/bin/env node
// Writes examples/<name>/npm-shrinkwrap.json: the example plugin's runtime dependency tree at
// exactly the versions (and integrity hashes) of this repository's package-lock.json.
//
// Why: the example's dependencies (bitcoinjs-lib, bip32, tiny-secp256k1) pin their own
// dependencies by range (@noble/hashes ^1.2.0, valibot ^1.2.0…). Installed without a lock, npm
// picks the newest version in each range, which may be one this repository's `npm ci` never
// fetched: the e2e test's `npm install --offline` of the packed example then fails with ENOTCACHED
// the day a new minor is published. `npm pack` ships npm-shrinkwrap.json and npm installs a
// package's shrinkwrap as is, so the tree is the one the root `npm ci` put in the npm cache,
// and a plugin that holds keys runs the crypto tree that was reviewed, not whatever is newest.
//
// Run after changing the example's dependencies or the lock: `node test/scripts/example-shrinkwrap.js`
// (test/src/e2e/exampleShrinkwrap.test.ts fails while the file is out of date).
const fs = require('node:fs');
const path = require('node:path');

const REPO = path.join(__dirname, '..', '..');

/** The shrinkwrap the example at `examples/<name>` should ship, as text. */
function shrinkwrapOf(name) {
  const dir = path.join(REPO, 'examples', name);
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const { packages } = JSON.parse(fs.readFileSync(path.join(REPO, 'package-lock.json'), 'utf8'));
  // Node's lookup in the lock's layout: <from>/node_modules/<dep>, then each enclosing node_modules.
  const locate = (from, dep) => {
    for (let at = from; ; at = at.replace(/\/?node_modules\/(@[^/]+\/)?[^/]+$/, '')) {
      const candidate = `${at ? `${at}/` : ''}node_modules/${dep}`;
      if (packages[candidate]) return candidate;
      if (!at) throw new Error(`${dep} (needed by ${from || name}) is not in package-lock.json: add it to a workspace first`);
    }
  };
  const out = {};
  const visit = (from, deps) => {
    for (const [dep, range] of Object.entries(deps ?? {})) {
      const at = locate(from, dep);
      if (from === '' && packages[at].version !== range)
        throw new Error(`${name} pins ${dep}@${range}; package-lock.json has ${packages[at].version}`);
      if (out[at]) continue;
      const { dev, peer, devOptional, ...entry } = packages[at];
      out[at] = entry;
      visit(at, entry.dependencies);
    }
  };
  visit('', pkg.dependencies);
  const root = { name: pkg.name, version: pkg.version, license: pkg.license, dependencies: pkg.dependencies };
  if (pkg.peerDependencies) root.peerDependencies = pkg.peerDependencies;
  if (pkg.engines) root.engines = pkg.engines;
  const sorted = Object.fromEntries(
    Object.keys(out)
      .sort()
      .map((k) => [k, out[k]]),
  );
  const shrinkwrap = { name: pkg.name, version: pkg.version, lockfileVersion: 3, requires: true, packages: { '': root, ...sorted } };
  return `${JSON.stringify(shrinkwrap, null, 2)}\n`;
}

module.exports = { shrinkwrapOf };

if (require.main === module) {
  const name = process.argv[2] ?? 'plugin-litecoin';
  fs.writeFileSync(path.join(REPO, 'examples', name, 'npm-shrinkwrap.json'), shrinkwrapOf(name));
  process.stdout.write(`examples/${name}/npm-shrinkwrap.json written from package-lock.json\n`);
}
