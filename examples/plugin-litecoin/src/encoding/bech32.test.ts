import { decodeSegwitV0, encodeSegwitV0 } from './bech32';

const hex = (b: Uint8Array | null) => (b ? Buffer.from(b).toString('hex') : null);

// BIP-173's own test vectors (segwit version 0), and what it says must be refused.
describe('bech32 segwit v0', () => {
  it('decodes and re-encodes BIP-173 P2WPKH and P2WSH addresses', () => {
    expect(hex(decodeSegwitV0('bc', 'BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4'))).toBe('751e76e8199196d454941c45d1b3a323f1433bd6');
    const p2wsh = 'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7';
    const program = decodeSegwitV0('tb', p2wsh) as Uint8Array;
    expect(hex(program)).toBe('1863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262');
    expect(encodeSegwitV0('tb', program)).toBe(p2wsh);
  });

  it('refuses another network, a bad checksum, mixed case, and version 1 (bech32m)', () => {
    expect(decodeSegwitV0('ltc', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4')).toBeNull();
    expect(decodeSegwitV0('bc', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5')).toBeNull();
    expect(decodeSegwitV0('bc', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7KV8F3T4')).toBeNull();
    expect(decodeSegwitV0('bc', 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0')).toBeNull();
  });
});
