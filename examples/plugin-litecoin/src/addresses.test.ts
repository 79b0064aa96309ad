import { addressOfScript, formatAddressOf, matchKeyOf, scriptHexOf } from './addresses';

// BIP-84's first litecoin address for "abandon … about" (Electrum-LTC, Ledger), and a P2WSH program.
const P2WPKH = 'ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh';
const P2WPKH_SCRIPT = '001496cd3178f3de0f307bcee1aeaa4d5987862dd30a';
const PROGRAM = '1863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262';

describe('litecoin native segwit addresses (bitcoinjs-lib)', () => {
  it('maps an address to its output script and back, P2WPKH and P2WSH', () => {
    expect(scriptHexOf('litecoin', 'mainnet', P2WPKH)).toBe(P2WPKH_SCRIPT);
    expect(addressOfScript('litecoin', 'mainnet', Buffer.from(P2WPKH_SCRIPT, 'hex'))).toBe(P2WPKH);
    const p2wsh = addressOfScript('litecoin', 'regtest', Buffer.from(`0020${PROGRAM}`, 'hex')) as string;
    expect(p2wsh).toMatch(/^rltc1q/);
    expect(matchKeyOf('litecoin', 'regtest', p2wsh)).toBe(`0020${PROGRAM}`);
    expect(formatAddressOf('litecoin', 'mainnet', P2WPKH.toUpperCase())).toBe(P2WPKH);
  });

  it("refuses another network's address, a bad checksum, mixed case, taproot and legacy forms", () => {
    expect(scriptHexOf('litecoin', 'testnet', P2WPKH)).toBeNull();
    expect(scriptHexOf('litecoin', 'mainnet', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4')).toBeNull();
    expect(scriptHexOf('litecoin', 'mainnet', `${P2WPKH.slice(0, -1)}x`)).toBeNull();
    expect(scriptHexOf('litecoin', 'mainnet', `${P2WPKH.slice(0, 20)}${P2WPKH.slice(20).toUpperCase()}`)).toBeNull();
    const taproot = addressOfScript('litecoin', 'mainnet', Buffer.from(`5120${PROGRAM}`, 'hex'));
    expect(taproot).toBeUndefined();
    expect(scriptHexOf('litecoin', 'mainnet', 'LaMT348PWRnrqeeWArpwQPbuanpXDZGEUz')).toBeNull();
    expect(() => matchKeyOf('litecoin', 'mainnet', 'not an address')).toThrow('is not a native segwit (ltc1…) litecoin mainnet address');
  });
});
