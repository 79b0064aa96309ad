import { openWalletSecret } from '@walletd/plugin-kit';
import { deriveAt, keyAt, scriptOfKey } from './derive';

const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

describe('BIP-84 derivation (bip32 over tiny-secp256k1)', () => {
  it("gives the litecoin addresses standard wallets restore at m/84'/2'/0'/{0,1}/i", () => {
    const secret = openWalletSecret(Buffer.from(MNEMONIC));
    expect(deriveAt('litecoin', 'mainnet', secret, 0, 0)).toEqual({
      address: 'ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh',
      matchKey: '001496cd3178f3de0f307bcee1aeaa4d5987862dd30a',
      path: "m/84'/2'/0'/0/0",
    });
    expect(deriveAt('litecoin', 'regtest', secret, 1, 3).path).toBe("m/84'/1'/0'/1/3");
    expect(deriveAt('litecoin', 'regtest', secret, 1, 3).address).toMatch(/^rltc1q/);
  });

  it("signs with the key whose script is the address's", () => {
    const secret = openWalletSecret(Buffer.from(MNEMONIC));
    expect(scriptOfKey(keyAt('litecoin', 'regtest', secret, 1, 7))).toBe(deriveAt('litecoin', 'regtest', secret, 1, 7).matchKey);
    expect(scriptOfKey(keyAt('litecoin', 'regtest', secret, 0, 7))).not.toBe(deriveAt('litecoin', 'regtest', secret, 1, 7).matchKey);
  });
});
