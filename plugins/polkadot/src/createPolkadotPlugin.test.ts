import { Keyring } from '@polkadot/keyring';
import { mnemonicToMiniSecret } from '@polkadot/util-crypto';
import { registerPlugins } from '@walletd/core';
import { openWalletSecret } from '@walletd/plugin-kit';
import { miniSecretFromEntropy } from './addresses';
import { createPolkadotPlugin } from './createPolkadotPlugin';
import { POLKADOT_CAPABILITIES } from './networks';

const ABANDON = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
// Alice's public key in three encodings: Polkadot (0), Kusama (2), generic Substrate (42).
const ALICE_HEX = '0xd43593c715fdd31c61141abd04a99fd6822c8558854ccde39a5684e7a56da27d';
const ALICE_0 = '15oF4uVJwmo4TdGW7VfQxNLavjCXviqxT9S1MgbjMNHr6Sp5';
const ALICE_2 = 'HNZata7iMYWmk5RvZRTiAsSDhV8366zq2YGb3tLH5Upf74F';
const ALICE_42 = '5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY';

describe('Polkadot plugin', () => {
  const plugin = createPolkadotPlugin();

  it('registers on contract v2: key-per-address, no memo or tag, three Asset Hub networks final at the GRANDPA finalized head', () => {
    const registry = registerPlugins([plugin as never]);
    expect(registry.forChain('polkadot')).toBe(plugin);
    expect(plugin.chains[0]?.capabilities).toEqual(POLKADOT_CAPABILITIES);
    expect(plugin.chains[0]?.networks.map((n) => [n.network, n.finality])).toEqual([
      ['mainnet', 'finalized'],
      ['paseo', 'finalized'],
      ['localnet', 'finalized'],
    ]);
  });

  it('derives sr25519 keys as polkadot.js and subkey do: the mini-secret from the BIP-39 entropy, hard path //index', () => {
    const secret = openWalletSecret(Buffer.from(ABANDON));
    expect(miniSecretFromEntropy(secret.entropy())).toEqual(mnemonicToMiniSecret(ABANDON));
    for (const [network, prefix] of [
      ['mainnet', 0],
      ['paseo', 0],
      ['localnet', 42],
    ] as const) {
      const keyring = new Keyring({ type: 'sr25519', ss58Format: prefix });
      for (const index of [0, 1, 7]) {
        const derived = plugin.deriveAddress('polkadot', network, secret, index);
        const pair = keyring.addFromUri(`${ABANDON}//${index}`);
        expect(derived).toEqual({
          address: pair.address,
          matchKey: `0x${Buffer.from(pair.publicKey).toString('hex')}`,
          path: `//${index}`,
        });
      }
    }
    expect(() => plugin.deriveAddress('polkadot', 'kusama', secret, 0)).toThrow(/does not serve/);
    expect(() => plugin.deriveAddress('polkadot', 'mainnet', secret, -1)).toThrow(/invalid address index/);
  });

  it('accepts any SS58 prefix and a 0x public key, matches them as one key and shows the network prefix', () => {
    for (const a of [ALICE_0, ALICE_2, ALICE_42, ALICE_HEX]) {
      expect(plugin.validateAddress('polkadot', 'mainnet', a)).toBe(true);
      expect(plugin.matchKey('polkadot', 'mainnet', a)).toBe(ALICE_HEX);
      expect(plugin.formatAddress('polkadot', 'mainnet', a)).toBe(ALICE_0);
      expect(plugin.formatAddress('polkadot', 'localnet', a)).toBe(ALICE_42);
    }
    // A changed character (bad checksum), an EVM address, a short account index, an asset id.
    expect(plugin.validateAddress('polkadot', 'mainnet', `${ALICE_0.slice(0, -1)}6`)).toBe(false);
    expect(plugin.validateAddress('polkadot', 'mainnet', '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266')).toBe(false);
    expect(plugin.validateAddress('polkadot', 'mainnet', 'F7NZ')).toBe(false);
    expect(plugin.validateAddress('polkadot', 'mainnet', '1984')).toBe(false);
    expect(() => plugin.matchKey('polkadot', 'mainnet', 'nope')).toThrow(/not a valid Polkadot address/);
  });

  it('an allow-listed asset is named by its assets-pallet id (u32), its own match form', () => {
    expect(plugin.matchKey('polkadot', 'mainnet', '1984')).toBe('1984');
    expect(plugin.matchKey('polkadot', 'mainnet', '1337')).toBe('1337');
    expect(plugin.matchKey('polkadot', 'mainnet', '0')).toBe('0');
    expect(() => plugin.matchKey('polkadot', 'mainnet', '01984')).toThrow();
    expect(() => plugin.matchKey('polkadot', 'mainnet', '4294967296')).toThrow();
  });
});
