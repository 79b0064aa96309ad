import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * Issue 48 §5: walletd loads every built-in plugin at start, and an API or dispatcher process
 * touches few chains, so a plugin's SDK is required by the first verb that needs it
 * (`onFirstUse`), not by `createPlugin()`: with them at start the seven SDKs were 35 MB of a 61 MB
 * heap and doubled the CPU of every full garbage collection. Checked on what a fresh process really
 * loads. The utxo plugin's bitcoinjs family (2.5 MB) is still loaded with it: its network table is
 * built from bitcoinjs-lib's network objects at load.
 */
const root = join(__dirname, '..', '..', '..');
const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

const SDK_OF: Record<string, RegExp> = {
  evm: /^ethers$/,
  xrp: /^xrpl$/,
  tron: /^tronweb$/,
  polkadot: /^@polkadot\/(util-crypto|types|api)$/,
  solana: /^(@solana\/kit|@solana-program\/.+)$/,
  ton: /^@ton\/ton$/,
};

/** The packages a fresh process holds after creating the plugin and (when `derive`) deriving address 0 of its first network. */
function loadedBy(plugin: string, derive: boolean): { packages: string[]; valid: boolean | null } {
  const script = `
    const kit = require('@walletd/plugin-kit');
    const p = require(process.argv[1]).createPlugin();
    let valid = null;
    if (${derive}) {
      const c = p.chains[0], n = c.networks[0].network;
      const secret = kit.openWalletSecret(Buffer.from(process.argv[2]));
      const { address } = p.deriveAddress(c.chain, n, secret, 0);
      valid = p.validateAddress(c.chain, n, address);
    }
    const names = new Set();
    for (const f of Object.keys(require.cache)) {
      const at = f.lastIndexOf('/node_modules/');
      if (at >= 0) { const q = f.slice(at + 14).split('/'); names.add(q[0].startsWith('@') ? q[0] + '/' + q[1] : q[0]); }
    }
    process.stdout.write(JSON.stringify({ packages: [...names], valid }));`;
  return JSON.parse(
    execFileSync(process.execPath, ['-e', script, `@walletd/plugin-${plugin}`, MNEMONIC], { cwd: root, encoding: 'utf8' }),
  ) as { packages: string[]; valid: boolean | null };
}

test.each(Object.keys(SDK_OF))('creating the %s plugin loads none of its SDK', (plugin) => {
  const { packages } = loadedBy(plugin, false);
  expect(packages.filter((p) => SDK_OF[plugin]?.test(p))).toEqual([]);
});

test.each(Object.keys(SDK_OF))('the %s plugin loads its SDK with the first verb that needs it, and the verb works', (plugin) => {
  const { packages, valid } = loadedBy(plugin, true);
  expect(packages.filter((p) => SDK_OF[plugin]?.test(p)).length).toBeGreaterThan(0);
  expect(valid).toBe(true);
});
