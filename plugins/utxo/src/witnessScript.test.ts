import { formatUtxoAddress, utxoMatchKey, validateUtxoAddress } from './addresses';
import { bitcoin, ecc } from './libs';
import { segwitAddress } from './segwitAddress';
import { outputVsize } from './verbs';

const BIP86 = 'bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr';
const BIP350_V1 = 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0';

describe('witness outputs a chain can spend', () => {
  it('pays taproot: the BIP-86 and BIP-350 vectors give OP_1 <32-byte key>, the script bitcoinjs builds with an ECC library', () => {
    // BIP-86's first receiving address (m/86'/0'/0'/0/0) commits to this output key.
    expect(utxoMatchKey('bitcoin', 'mainnet', BIP86)).toBe('5120a60869f0dbcf1dc659c9cecbaf8050135ea9e8cdc487053f1dc6880949dc684c');
    expect(utxoMatchKey('bitcoin', 'mainnet', BIP350_V1)).toBe('512079be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798');
    for (const a of [BIP86, BIP350_V1]) {
      expect(formatUtxoAddress('bitcoin', 'mainnet', a.toUpperCase())).toBe(a);
      // The match key (the script) is taken back as the same destination.
      expect(formatUtxoAddress('bitcoin', 'mainnet', utxoMatchKey('bitcoin', 'mainnet', a))).toBe(a);
    }
    // Last, and only in the test's own process: the plugin never registers a process-wide ECC
    // library (all of the above ran without one, as the server does).
    bitcoin.initEccLib(ecc);
    for (const a of [BIP86, BIP350_V1]) {
      const pubkey = Buffer.from(utxoMatchKey('bitcoin', 'mainnet', a).slice(4), 'hex');
      expect(Buffer.from(bitcoin.payments.p2tr({ pubkey }).output as Uint8Array).toString('hex')).toBe(
        utxoMatchKey('bitcoin', 'mainnet', a),
      );
    }
    expect(
      validateUtxoAddress(
        'bitcoin',
        'regtest',
        segwitAddress('bcrt', 1, Buffer.from(utxoMatchKey('bitcoin', 'mainnet', BIP86).slice(4), 'hex'), 0, 32),
      ),
    ).toBe(true);
  });

  it('refuses witness v2–v16 (anyone can spend them until a soft fork), v1 programs that are no key, and a bech32 v1 checksum', () => {
    // BIP-350's valid v2 and v16 vectors: well-formed, and still refused.
    for (const a of ['bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs', 'BC1SW50QGDZ25J'])
      expect(() => utxoMatchKey('bitcoin', 'mainnet', a)).toThrow(/witness version (2|16) is not defined yet/);
    // As a match key (the script in hex) too.
    expect(() => utxoMatchKey('bitcoin', 'mainnet', '5210751e76e8199196d454941c45d1b3a323')).toThrow(/witness version 2/);
    // x = 0 is not on secp256k1: no key could ever sign for this output.
    expect(() => utxoMatchKey('bitcoin', 'mainnet', segwitAddress('bc', 1, new Uint8Array(32), 0, 32))).toThrow(/not a public key/);
    // BIP-350's invalid vector: a v1 program with a bech32 (not bech32m) checksum.
    expect(validateUtxoAddress('bitcoin', 'mainnet', 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd')).toBe(false);
  });

  it('refuses bech32 on dogecoin, which has no segwit, however valid its checksum', () => {
    for (const [network, hrp] of [
      ['mainnet', 'doge'],
      ['regtest', 'dcrt'],
    ] as const) {
      const text = segwitAddress(hrp, 0, Buffer.alloc(20, 7), 0, 20);
      expect(validateUtxoAddress('dogecoin', network, text)).toBe(false);
      expect(() => utxoMatchKey('dogecoin', network, text)).toThrow(/dogecoin has no segwit outputs/);
    }
    expect(validateUtxoAddress('dogecoin', 'mainnet', 'DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L')).toBe(true);
  });

  it('sizes each output by its script: P2WPKH 31, P2SH 32, P2PKH 34, P2WSH and taproot 43 vbytes', () => {
    expect(outputVsize(`0014${'00'.repeat(20)}`)).toBe(31);
    expect(outputVsize(`a914${'00'.repeat(20)}87`)).toBe(32);
    expect(outputVsize(`76a914${'00'.repeat(20)}88ac`)).toBe(34);
    expect(outputVsize(`0020${'00'.repeat(32)}`)).toBe(43);
    expect(outputVsize(utxoMatchKey('bitcoin', 'mainnet', BIP86))).toBe(43);
  });
});
