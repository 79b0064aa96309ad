import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * Every suite `npm run bench -- <suite>` can run loads and exports `main`: a suite is run by hand,
 * rarely, so a module it imports that moved (the devnet went from @walletd/server to
 * @walletd/devchains, and the follower suite failed with "Cannot find module" until someone
 * measured) must fail here instead. Loading runs nothing: each suite starts its work in `main`.
 * Loaded by plain Node, as `npm run bench` runs them (jest cannot require the ES-module-only
 * packages some suites use, such as loadtest).
 */
const BENCH = join(__dirname, '..', '..', '..', 'bench');
const LOAD_ALL = `
const { SUITES } = require(${JSON.stringify(join(BENCH, 'suites'))});
const out = {};
for (const [name, load] of Object.entries(SUITES)) {
  try { out[name] = typeof load().main; } catch (e) { out[name] = String(e && e.message || e).split('\\n')[0]; }
}
process.stdout.write(JSON.stringify(out));
`;

describe('bench suites', () => {
  it('every suite listed in bench/suites.js loads in Node and exports main', () => {
    const loaded = JSON.parse(execFileSync(process.execPath, ['--no-deprecation', '-e', LOAD_ALL], { encoding: 'utf8' })) as Record<
      string,
      string
    >;
    expect(Object.keys(loaded)).toEqual(expect.arrayContaining(['follower', 'indexer', 'utxo', 'solana', 'polkadot', 'api']));
    expect(loaded).toEqual(Object.fromEntries(Object.keys(loaded).map((name) => [name, 'function'])));
  });
});
