import { CHAINS, type ChainPlugin, NETWORKS, amountCeiling, chainTableOf, registerPlugins } from '@walletd/core';
import { createEvmPlugin } from '@walletd/plugin-evm';
import { createPolkadotPlugin } from '@walletd/plugin-polkadot';
import { createSolanaPlugin } from '@walletd/plugin-solana';
import { createTonPlugin } from '@walletd/plugin-ton';
import { createTronPlugin } from '@walletd/plugin-tron';
import { createUtxoPlugin } from '@walletd/plugin-utxo';
import { createXrpPlugin } from '@walletd/plugin-xrp';

/**
 * Issue 31 item 2, first step: the shipped plugins declare their chains as data (networks, test
 * network or not, native asset and decimals, amount ceilings), and the table built from them is
 * core's table exactly, so core's own list can be replaced by `registry.chainTable()`.
 */
const shipped = (): ChainPlugin[] => [
  createEvmPlugin(),
  createUtxoPlugin(),
  createTronPlugin(),
  createSolanaPlugin(),
  createXrpPlugin(),
  createTonPlugin(),
  createPolkadotPlugin(),
];

test('the chain table built from the seven shipped plugins is the one core lists: every chain, network, native asset, test flag', () => {
  const table = registerPlugins(shipped()).chainTable();
  expect([...table.networks.keys()].sort()).toEqual([...CHAINS].sort());
  for (const chain of CHAINS) {
    const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
    expect({ chain, networks: [...(table.networks.get(chain) ?? [])].sort(byName) }).toEqual({
      chain,
      networks: [...NETWORKS[chain]].sort(byName),
    });
  }
});

test('the amount ceilings the shipped plugins declare are the ones core enforces', () => {
  const table = registerPlugins(shipped()).chainTable();
  for (const chain of CHAINS) {
    expect({ chain, ceiling: table.ceilings.get(chain) }).toEqual({
      chain,
      ceiling: { native: amountCeiling(chain, true), token: amountCeiling(chain, false) },
    });
  }
});

test('a plugin declaring other decimals than walletd knows for its network is refused at start-up, by name', () => {
  const tron = createTronPlugin();
  const wrong: ChainPlugin = {
    ...tron,
    chains: tron.chains.map((c) => ({
      ...c,
      networks: c.networks.map((n) => (n.network === 'nile' ? { ...n, native: { symbol: 'TRX', decimals: 18 } } : n)),
    })),
  };
  expect(() => registerPlugins([wrong])).toThrow(
    "plugin @walletd/plugin-tron: tron/nile declares native TRX with 18 decimals; walletd's table has TRX with 6",
  );
});

test('a plugin declaring another amount ceiling than walletd enforces is refused at start-up', () => {
  const sol = createSolanaPlugin();
  const wrong: ChainPlugin = {
    ...sol,
    chains: sol.chains.map((c) => ({ ...c, amountCeiling: { native: 2n ** 53n, token: 2n ** 64n - 1n } })),
  };
  expect(() => registerPlugins([wrong])).toThrow(/solana declares amount ceilings 9007199254740992 \(native\)/);
});

test('a contract-2 plugin that declares none of this data still registers (the data is optional until core stops listing chains)', () => {
  const tron = createTronPlugin();
  const bare: ChainPlugin = {
    ...tron,
    chains: tron.chains.map(({ amountCeiling: _c, ...c }) => ({
      ...c,
      networks: c.networks.map(({ testnet: _t, native: _n, ...n }) => n),
    })),
  };
  const table = registerPlugins([bare]).chainTable();
  expect(table.networks.size).toBe(0);
  expect(table.ceilings.size).toBe(0);
  expect(
    chainTableOf(tron.chains)
      .networks.get('tron')
      ?.map((n) => n.name),
  ).toEqual(['mainnet', 'nile', 'shasta', 'devnet']);
});
