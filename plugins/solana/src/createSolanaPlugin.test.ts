import { registerPlugins } from '@walletd/core';
import { type TokenDefinition, openWalletSecret } from '@walletd/plugin-kit';
import { createSolanaPlugin } from './createSolanaPlugin';
import { SOLANA_CAPABILITIES } from './networks';

const ABANDON = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const DEVNET_USDC = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU';

describe('Solana plugin', () => {
  const plugin = createSolanaPlugin();

  it("derives SLIP-10 ed25519 addresses at m/44'/501'/i'/0' (Phantom's first account for the abandon mnemonic)", () => {
    const secret = openWalletSecret(Buffer.from(ABANDON));
    expect(plugin.deriveAddress('solana', 'mainnet', secret, 0)).toEqual({
      address: 'HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk',
      matchKey: 'HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk',
      path: "m/44'/501'/0'/0'",
    });
    expect(plugin.deriveAddress('solana', 'devnet', secret, 1).path).toBe("m/44'/501'/1'/0'");
    expect(() => plugin.deriveAddress('solana', 'goerli', secret, 0)).toThrow(/does not serve/);
    expect(() => plugin.deriveAddress('solana', 'mainnet', secret, -1)).toThrow(/invalid address index/);
  });

  it('validates base58 32-byte addresses; the match form is the address; a Token-2022 contract names its mint', () => {
    expect(plugin.validateAddress('solana', 'mainnet', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v')).toBe(true);
    expect(plugin.validateAddress('solana', 'mainnet', '11111111111111111111111111111111')).toBe(true);
    expect(plugin.validateAddress('solana', 'mainnet', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1vvv')).toBe(false);
    expect(plugin.validateAddress('solana', 'mainnet', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1O')).toBe(false);
    expect(plugin.validateAddress('solana', 'mainnet', '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266')).toBe(false);
    expect(plugin.validateAddress('solana', 'mainnet', `token-2022:${DEVNET_USDC}`)).toBe(false);
    expect(plugin.matchKey('solana', 'devnet', `token-2022:${DEVNET_USDC}`)).toBe(DEVNET_USDC);
    expect(() => plugin.matchKey('solana', 'mainnet', 'nope')).toThrow(/not a valid Solana address/);
  });

  it("token accounts: each allow-listed mint's associated token account, as in the recorded devnet USDC transfer", async () => {
    const usdc: TokenDefinition = {
      key: `solana:devnet:${DEVNET_USDC}`,
      symbol: 'USDC',
      decimals: 6,
      contractAddress: DEVNET_USDC,
      matchKey: DEVNET_USDC,
    };
    const reader = plugin.createReader('solana', 'devnet', { rpcUrl: 'http://127.0.0.1:9' });
    const owner = (address: string) => ({ address, matchKey: address, path: "m/44'/501'/0'/0'" });
    // Both token accounts of real transaction 3Zj5XkvE… are their owners' associated ones.
    expect(await plugin.tokenAccounts?.('solana', 'devnet', owner('BXT1K8kzYXWMi6ihg7m9UqiHW4iJbJ69zumELHE9oBLe'), [usdc], reader)).toEqual(
      [
        {
          assetKey: usdc.key,
          address: '644PJ6UW8e4gQpjKdBVd4MCYasWjSECKjqd2qzdeAJY6',
          matchKey: '644PJ6UW8e4gQpjKdBVd4MCYasWjSECKjqd2qzdeAJY6',
        },
      ],
    );
    const [sender] =
      (await plugin.tokenAccounts?.('solana', 'devnet', owner('BLw3RweJmfbTapJRgnPRvd962YDjFYAnVGd1p5hmZ5tP'), [usdc], reader)) ?? [];
    expect(sender?.address).toBe('G23tQHsbQuh3yqUBoyXDn3TwqEbbbUHAHEeUSvJaVRtA');
    // The same mint listed under Token-2022 is another account.
    const [t22] =
      (await plugin.tokenAccounts?.(
        'solana',
        'devnet',
        owner('BLw3RweJmfbTapJRgnPRvd962YDjFYAnVGd1p5hmZ5tP'),
        [{ ...usdc, contractAddress: `token-2022:${DEVNET_USDC}` }],
        reader,
      )) ?? [];
    expect(t22?.address).not.toBe(sender?.address);
  });

  it('registers with key-per-address addressing and the fee-payer capability', () => {
    const registry = registerPlugins([plugin as never]);
    expect(registry.forChain('solana')).toBe(plugin);
    expect(plugin.chains[0]?.capabilities).toEqual(SOLANA_CAPABILITIES);
    expect(SOLANA_CAPABILITIES.feePayer).toBe(true);
    expect(plugin.chains[0]?.networks.map((n) => [n.network, n.finality])).toEqual([
      ['mainnet', 'finalized'],
      ['devnet', 'finalized'],
      ['testnet', 'finalized'],
      ['localnet', 'finalized'],
    ]);
  });
});
