import { registerPlugins } from '@walletd/core';
import { openWalletSecret, PLUGIN_API_VERSION, type ChainPlugin } from '@walletd/plugin-kit';
import { createEvmPlugin } from './createEvmPlugin';

// The well-known development mnemonic: its first account is anvil's and hardhat's default.
const DEV_MNEMONIC = 'test test test test test test test test test test test junk';

describe('EVM plugin', () => {
  const plugin = createEvmPlugin();

  it('derives BIP-44 coin type 60 addresses deterministically', () => {
    const seed = openWalletSecret(Buffer.from(DEV_MNEMONIC));
    expect(plugin.deriveAddress('ethereum', 'mainnet', seed, 0)).toEqual({
      address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
      matchKey: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
      path: "m/44'/60'/0'/0/0",
    });
    expect(plugin.deriveAddress('polygon', 'amoy', seed, 1).address).toBe('0x70997970C51812dc3A010C7d01b50e0d17dc79C8');
    expect(() => plugin.deriveAddress('ethereum', 'goerli', seed, 0)).toThrow(/does not serve/);
  });

  it('validates addresses and their EIP-55 checksum', () => {
    expect(plugin.validateAddress('ethereum', 'mainnet', '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266')).toBe(true);
    expect(plugin.validateAddress('ethereum', 'mainnet', '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266')).toBe(true);
    expect(plugin.validateAddress('ethereum', 'mainnet', '0xF39Fd6e51aad88F6F4ce6aB8827279cffFb92266')).toBe(false);
    expect(plugin.validateAddress('ethereum', 'mainnet', '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb9226')).toBe(false);
    expect(() => plugin.matchKey('ethereum', 'mainnet', 'nope')).toThrow(/not a valid EVM address/);
  });

  it('registers, and registration refuses a plugin for another contract version or a doubly-served chain', () => {
    const registry = registerPlugins([plugin]);
    expect(registry.forChain('arbitrum')).toBe(plugin);
    expect(registry.forChain('bitcoin')).toBeUndefined();
    expect(() => registerPlugins([{ ...plugin, apiVersion: 4 } as unknown as ChainPlugin])).toThrow(
      /contract version 4; this walletd needs 3/,
    );
    // A v1 plugin is told what changed, by name.
    expect(() => registerPlugins([{ ...plugin, apiVersion: 1 } as unknown as ChainPlugin])).toThrow(
      /contract version 1; this walletd needs 3; what changed in version 2: finality is 'confirmations' or 'finalized'.*WalletSecret/,
    );
    const noCapabilities = { ...plugin, chains: plugin.chains.map(({ capabilities: _c, ...c }) => c) } as unknown as ChainPlugin;
    expect(() => registerPlugins([noCapabilities])).toThrow(/ethereum does not declare capabilities.memo/);
    expect(() => registerPlugins([plugin, { ...plugin, name: 'other' }])).toThrow(/chain ethereum is served by both/);
    expect(() =>
      registerPlugins([
        {
          ...plugin,
          chains: [{ ...plugin.chains[0]!, networks: [{ network: 'goerli', defaultConfirmations: 1, finality: 'confirmations' }] }],
        } as unknown as ChainPlugin,
      ]),
    ).toThrow(/ethereum\/goerli does not declare testnet/);
    expect(() => registerPlugins([{ ...plugin, detectModule: '/nonexistent/detect.js' }])).toThrow(
      /detectModule \/nonexistent\/detect.js does not load/,
    );
    expect(() => registerPlugins([{ ...plugin, detectModule: require.resolve('./networks') }])).toThrow(/exports no detect\(\)/);
    expect(PLUGIN_API_VERSION).toBe(3);
  });
});
