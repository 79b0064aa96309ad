import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ChainReader, registerPlugins } from '@walletd/core';
import { createEvmPlugin } from '@walletd/plugin-evm';
import { SHIPPED_CHAINS, runWalletdAsync } from '@walletd/test-harness';
import { loadPlugins } from './plugins';

describe('chain plugins loaded by package name (config `plugins`)', () => {
  it('loads all seven built-in packages by default, and only the ones named when the config names some', () => {
    const all = loadPlugins();
    expect(all.all().map((p) => p.name)).toEqual([
      '@walletd/plugin-evm',
      '@walletd/plugin-utxo',
      '@walletd/plugin-tron',
      '@walletd/plugin-solana',
      '@walletd/plugin-xrp',
      '@walletd/plugin-ton',
      '@walletd/plugin-polkadot',
    ]);
    for (const chain of SHIPPED_CHAINS) expect(all.forChain(chain)).toBeDefined();
    expect([...all.chainTable().chains()].sort()).toEqual([...SHIPPED_CHAINS].sort());
    const evmOnly = loadPlugins(['@walletd/plugin-evm']);
    expect(evmOnly.forChain('ethereum')?.name).toBe('@walletd/plugin-evm');
    expect(evmOnly.forChain('bitcoin')).toBeUndefined();
  });

  it('names the package that is missing, is not a plugin, or that registration refuses', () => {
    expect(() => loadPlugins(['@walletd/plugin-nonexistent'])).toThrow(
      /^plugin package @walletd\/plugin-nonexistent is not installed \(npm install @walletd\/plugin-nonexistent beside walletd/,
    );
    expect(() => loadPlugins(['ethers'])).toThrow(
      'plugin package ethers exports no createPlugin() function; is it a walletd chain plugin?',
    );
    expect(() => loadPlugins(['@walletd/plugin-evm', '@walletd/plugin-evm'])).toThrow(/chain ethereum is served by both/);
  });

  it('serves an EVM network declared in chains[] under its own name, and refuses a declaration named like a shipped chain', () => {
    const declared = {
      network: 'mainnet',
      rpcUrl: 'http://127.0.0.1:1',
      family: 'evm' as const,
      chainId: 8453,
      nativeSymbol: 'ETH',
      confirmations: 10,
    };
    const registry = loadPlugins(undefined, [{ chain: 'base', ...declared }]);
    expect(registry.forChain('base')?.name).toBe('@walletd/plugin-evm');
    expect(registry.chainTable().network('base', 'mainnet')).toEqual({
      name: 'mainnet',
      testnet: false,
      native: { symbol: 'ETH', decimals: 18 },
    });
    expect(registry.forChain('base')?.chains.find((c) => c.chain === 'base')?.networks[0]).toMatchObject({
      chainId: 8453,
      defaultConfirmations: 10,
    });
    expect(() => loadPlugins(undefined, [{ chain: 'ethereum', ...declared }])).toThrow(
      'chains[]: "ethereum" is a built-in chain; a network declared with family "evm" needs a name of its own (e.g. "base")',
    );
    expect(() => loadPlugins(undefined, [{ chain: 'tron', ...declared }])).toThrow(/"tron" is a built-in chain/);
  });

  it('`walletd serve` with an unknown plugin package exits 1 before anything starts, naming it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'walletd-plugins-'));
    const config = join(dir, 'walletd.json');
    writeFileSync(config, JSON.stringify({ dataDir: join(dir, 'data'), plugins: ['@acme/walletd-plugin-nope'] }));
    const run = await runWalletdAsync(['serve', '--config', config], { WALLETD_DEVNET: '0' });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('plugin package @acme/walletd-plugin-nope is not installed');
  });

  it('makes one reader per chain, network and node for the whole process, and closes each once at shutdown', async () => {
    const evm = createEvmPlugin();
    const made: string[] = [];
    const closed: string[] = [];
    const registry = registerPlugins([
      {
        ...evm,
        createReader: (chain, network, options) => {
          made.push(`${chain}/${network} ${options.rpcUrl}`);
          return {
            ...evm.createReader(chain, network, options),
            close: async () => void closed.push(`${chain}/${network} ${options.rpcUrl}`),
          } as ChainReader as never;
        },
      },
    ]);
    const mainnet = { chain: 'ethereum', network: 'mainnet', rpcUrl: 'http://127.0.0.1:1' };
    const first = registry.readerFor(mainnet);
    expect(registry.readerFor({ ...mainnet })).toBe(first);
    registry.readerFor({ ...mainnet, network: 'sepolia' });
    registry.readerFor({ ...mainnet, rpcUrl: 'http://127.0.0.1:2' });
    expect(made).toEqual([
      'ethereum/mainnet http://127.0.0.1:1',
      'ethereum/sepolia http://127.0.0.1:1',
      'ethereum/mainnet http://127.0.0.1:2',
    ]);
    await registry.closeReaders();
    await registry.closeReaders();
    expect(closed.sort()).toEqual([...made].sort());
    expect(() => registry.readerFor({ ...mainnet, chain: 'bitcoin' })).toThrow(/no plugin serves bitcoin/);
  });
});
