import { registerPlugins } from '@walletd/core';
import { type ChainPlugin, openWalletSecret } from '@walletd/plugin-kit';
import { utils } from 'tronweb';
import { createTronPlugin } from './createTronPlugin';

const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

describe('Tron plugin', () => {
  const plugin = createTronPlugin();

  it("derives m/44'/195'/0'/0/i addresses that tronweb derives from the same mnemonic", () => {
    const secret = openWalletSecret(Buffer.from(MNEMONIC));
    expect(plugin.deriveAddress('tron', 'mainnet', secret, 0)).toEqual({
      address: 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH',
      matchKey: 'c8599111f29c1e1e061265b4af93ea1f274ad78a',
      path: "m/44'/195'/0'/0/0",
    });
    for (const i of [1, 7, 2 ** 31 - 1]) {
      const ours = plugin.deriveAddress('tron', 'nile', secret, i);
      expect(ours.address).toBe(utils.accounts.generateAccountWithMnemonic(MNEMONIC, `m/44'/195'/0'/0/${i}`).address);
    }
    expect(() => plugin.deriveAddress('tron', 'goerli', secret, 0)).toThrow(/does not serve tron\/goerli/);
    expect(() => plugin.deriveAddress('tron', 'mainnet', secret, -1)).toThrow(/invalid address index/);
  });

  it('accepts base58check T-addresses only; refuses bad checksums, other prefixes, EVM and bare hex forms', () => {
    const ok = 'TJ4eV1hnVAiFmeArBsuL6GkgTGVnWBe7eV';
    expect(plugin.validateAddress('tron', 'mainnet', ok)).toBe(true);
    expect(plugin.validateAddress('tron', 'mainnet', 'TJ4eV1hnVAiFmeArBsuL6GkgTGVnWBe7eW')).toBe(false); // checksum
    expect(plugin.validateAddress('tron', 'mainnet', '0x58c85b7b6a5118beb3b23c14fcb2f3551a81d79a')).toBe(false); // EVM
    expect(plugin.validateAddress('tron', 'mainnet', '4158c85b7b6a5118beb3b23c14fcb2f3551a81d79a')).toBe(false); // node hex
    expect(plugin.validateAddress('tron', 'mainnet', '58c85b7b6a5118beb3b23c14fcb2f3551a81d79a')).toBe(false); // match form
    // The same 20 bytes under bitcoin's P2PKH version byte (0x00): a valid base58check, not a Tron address.
    const otherPrefix = utils.crypto.getBase58CheckAddress([0x00, ...Buffer.from('58c85b7b6a5118beb3b23c14fcb2f3551a81d79a', 'hex')]);
    expect(plugin.validateAddress('tron', 'mainnet', otherPrefix)).toBe(false);
    expect(plugin.validateAddress('tron', 'mainnet', 'tJ4eV1hnVAiFmeArBsuL6GkgTGVnWBe7eV')).toBe(false);
    // Every form of one account is one match key, and the display form comes back from it.
    for (const form of [
      ok,
      '4158c85b7b6a5118beb3b23c14fcb2f3551a81d79a',
      '4158C85B7B6A5118BEB3B23C14FCB2F3551A81D79A',
      '58c85b7b6a5118beb3b23c14fcb2f3551a81d79a',
    ])
      expect(plugin.matchKey('tron', 'mainnet', form)).toBe('58c85b7b6a5118beb3b23c14fcb2f3551a81d79a');
    expect(plugin.formatAddress('tron', 'mainnet', '58c85b7b6a5118beb3b23c14fcb2f3551a81d79a')).toBe(ok);
    expect(() => plugin.matchKey('tron', 'mainnet', 'TJ4eV1hnVAiFmeArBsuL6GkgTGVnWBe7eW')).toThrow(/not a valid Tron address/);
  });

  it('registers for tron on contract v2 with a memo and nothing else declared', () => {
    const registry = registerPlugins([plugin as unknown as ChainPlugin]);
    expect(registry.forChain('tron')).toBe(plugin);
    expect(plugin.chains[0]?.capabilities).toEqual({ memo: true, destinationTag: false, multipleOutputs: false, feePayer: false });
    expect(plugin.chains[0]?.networks.map((n) => [n.network, n.finality])).toEqual([
      ['mainnet', 'finalized'],
      ['nile', 'finalized'],
      ['shasta', 'finalized'],
      ['devnet', 'finalized'],
    ]);
  });
});
