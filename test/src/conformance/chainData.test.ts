import { type ChainPlugin, type NetworkInfo, registerPlugins } from '@walletd/core';
import { createEvmPlugin } from '@walletd/plugin-evm';
import { createPolkadotPlugin } from '@walletd/plugin-polkadot';
import { createSolanaPlugin } from '@walletd/plugin-solana';
import { createTonPlugin } from '@walletd/plugin-ton';
import { createTronPlugin } from '@walletd/plugin-tron';
import { createUtxoPlugin } from '@walletd/plugin-utxo';
import { createXrpPlugin } from '@walletd/plugin-xrp';

/**
 * Issue 31 item 2: the chains are the ones the plugins declare (networks, test network or not,
 * native asset and decimals, amount ceilings); walletd keeps no list of its own. What the shipped
 * plugins must keep declaring is written out here (it was core's table until core stopped listing
 * chains), and registration refuses incomplete declarations by name.
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

const net = (name: string, testnet: boolean, symbol: string, decimals: number): NetworkInfo => ({
  name,
  testnet,
  native: { symbol, decimals },
});
const EXPECTED: Record<string, NetworkInfo[]> = {
  ethereum: [net('mainnet', false, 'ETH', 18), net('sepolia', true, 'ETH', 18), net('devnet', true, 'ETH', 18)],
  bsc: [net('mainnet', false, 'BNB', 18), net('testnet', true, 'tBNB', 18)],
  polygon: [net('mainnet', false, 'POL', 18), net('amoy', true, 'POL', 18)],
  arbitrum: [net('mainnet', false, 'ETH', 18), net('sepolia', true, 'ETH', 18)],
  bitcoin: [net('mainnet', false, 'BTC', 8), net('testnet', true, 'BTC', 8), net('signet', true, 'BTC', 8), net('regtest', true, 'BTC', 8)],
  dogecoin: [net('mainnet', false, 'DOGE', 8), net('testnet', true, 'DOGE', 8), net('regtest', true, 'DOGE', 8)],
  xrp: [net('mainnet', false, 'XRP', 6), net('testnet', true, 'XRP', 6), net('devnet', true, 'XRP', 6), net('localnet', true, 'XRP', 6)],
  polkadot: [net('mainnet', false, 'DOT', 10), net('paseo', true, 'PAS', 10), net('localnet', true, 'ROC', 12)],
  tron: [net('mainnet', false, 'TRX', 6), net('nile', true, 'TRX', 6), net('shasta', true, 'TRX', 6), net('devnet', true, 'TRX', 6)],
  solana: [net('mainnet', false, 'SOL', 9), net('devnet', true, 'SOL', 9), net('testnet', true, 'SOL', 9), net('localnet', true, 'SOL', 9)],
  ton: [net('mainnet', false, 'TON', 9), net('testnet', true, 'TON', 9), net('localnet', true, 'TON', 9)],
};
const UINT256 = 2n ** 256n - 1n;
const CEILINGS: Record<string, { native: bigint; token: bigint }> = {
  ethereum: { native: UINT256, token: UINT256 },
  bsc: { native: UINT256, token: UINT256 },
  polygon: { native: UINT256, token: UINT256 },
  arbitrum: { native: UINT256, token: UINT256 },
  bitcoin: { native: 21_000_000n * 100_000_000n, token: 21_000_000n * 100_000_000n },
  dogecoin: { native: 10_000_000_000n * 100_000_000n, token: 10_000_000_000n * 100_000_000n },
  tron: { native: 2n ** 63n - 1n, token: UINT256 },
  solana: { native: 2n ** 64n - 1n, token: 2n ** 64n - 1n },
  xrp: { native: 10n ** 17n, token: 10n ** 17n },
  polkadot: { native: 2n ** 128n - 1n, token: 2n ** 128n - 1n },
  ton: { native: 2n ** 120n - 1n, token: 2n ** 120n - 1n },
};

test('the chain table built from the seven shipped plugins: every chain, network, native asset, test flag', () => {
  const table = registerPlugins(shipped()).chainTable();
  expect([...table.chains()].sort()).toEqual(Object.keys(EXPECTED).sort());
  const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
  for (const [chain, networks] of Object.entries(EXPECTED)) {
    expect({ chain, networks: [...(table.networks.get(chain) ?? [])].sort(byName) }).toEqual({
      chain,
      networks: [...networks].sort(byName),
    });
  }
  expect(table.nativeAsset('polkadot', 'localnet')).toEqual({
    key: 'polkadot:localnet:roc',
    symbol: 'ROC',
    decimals: 12,
    contractAddress: null,
  });
});

test('the amount ceilings the shipped plugins declare: each chain its known limit', () => {
  const table = registerPlugins(shipped()).chainTable();
  for (const [chain, ceiling] of Object.entries(CEILINGS)) {
    expect({ chain, native: table.ceiling(chain, true), token: table.ceiling(chain, false) }).toEqual({ chain, ...ceiling });
  }
});

test('a chain walletd has never heard of registers from its declaration alone, and is in the table', () => {
  const utxo = createUtxoPlugin();
  const bitcoin = utxo.chains.find((c) => c.chain === 'bitcoin')!;
  const other: ChainPlugin = { ...utxo, name: 'example-litecoin', chains: [{ ...bitcoin, chain: 'litecoin' }] };
  const table = registerPlugins([other]).chainTable();
  expect(table.chains()).toEqual(['litecoin']);
  expect(table.network('litecoin', 'regtest')).toEqual({ name: 'regtest', testnet: true, native: { symbol: 'BTC', decimals: 8 } });
});

test('a contract-2 plugin without the chain data is refused at start-up, naming what to declare; with it, it registers', () => {
  const tron = createTronPlugin();
  const v2 = { ...tron, apiVersion: 2 } as ChainPlugin;
  expect(registerPlugins([v2]).chainTable().chains()).toEqual(['tron']);
  const noNetworkData = {
    ...v2,
    chains: tron.chains.map((c) => ({ ...c, networks: c.networks.map(({ testnet: _t, native: _n, ...n }) => n) })),
  } as unknown as ChainPlugin;
  expect(() => registerPlugins([noNetworkData])).toThrow(
    /^plugin @walletd\/plugin-tron: tron\/mainnet does not declare testnet \(true or false\) \(contract 3: each network declares testnet/,
  );
  const noNative = {
    ...v2,
    chains: tron.chains.map((c) => ({ ...c, networks: c.networks.map(({ native: _n, ...n }) => n) })),
  } as unknown as ChainPlugin;
  expect(() => registerPlugins([noNative])).toThrow(/tron\/mainnet does not declare native \{symbol, decimals\}/);
  const noCeiling = { ...v2, chains: tron.chains.map(({ amountCeiling: _c, ...c }) => c) } as unknown as ChainPlugin;
  expect(() => registerPlugins([noCeiling])).toThrow(/tron does not declare amountCeiling.native/);
});

test('a chain name not of the form, a network declared twice or a ceiling the database cannot hold is refused by name', () => {
  const sol = createSolanaPlugin();
  const named = (chain: string): ChainPlugin => ({ ...sol, chains: sol.chains.map((c) => ({ ...c, chain })) });
  expect(() => registerPlugins([named('Solana')])).toThrow(/chain name "Solana" is not of the form/);
  expect(() => registerPlugins([named('sol:ana')])).toThrow(/chain name "sol:ana" is not of the form/);
  const twice: ChainPlugin = { ...sol, chains: sol.chains.map((c) => ({ ...c, networks: [...c.networks, c.networks[0]!] })) };
  expect(() => registerPlugins([twice])).toThrow(/solana declares network mainnet twice/);
  const huge: ChainPlugin = { ...sol, chains: sol.chains.map((c) => ({ ...c, amountCeiling: { native: 10n ** 78n, token: 1n } })) };
  expect(() => registerPlugins([huge])).toThrow(
    /solana does not declare amountCeiling.native \(a bigint of base units, above 0 and at most 78 digits\)/,
  );
});
