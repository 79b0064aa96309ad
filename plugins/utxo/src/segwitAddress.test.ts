import fc from 'fast-check';
import { bitcoin } from './libs';
import { segwitAddress } from './segwitAddress';

const hexBytes = (h: string) => Uint8Array.from(Buffer.from(h, 'hex'));

describe('segwitAddress', () => {
  it('encodes the BIP-173 and BIP-350 vectors', () => {
    // BIP-173: P2WPKH and P2WSH of the key 0279be66…; BIP-350: the first taproot vector.
    const cases: [string, number, string, string][] = [
      ['bc', 0, '751e76e8199196d454941c45d1b3a323f1433bd6', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4'],
      [
        'tb',
        0,
        '1863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262',
        'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7',
      ],
      [
        'bc',
        1,
        '79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798',
        'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0',
      ],
    ];
    for (const [hrp, version, program, expected] of cases) {
      const bytes = hexBytes(`aa${program}bb`); // read in place, between other bytes
      expect(segwitAddress(hrp, version, bytes, 1, bytes.length - 1)).toBe(expected);
    }
  });

  it('matches bitcoinjs for any program, version and network prefix', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('bc', 'tb', 'bcrt', 'doge', 'tdge', 'dcrt'),
        fc.oneof(
          fc.record({ version: fc.constant(0), program: fc.uint8Array({ minLength: 20, maxLength: 20 }) }),
          fc.record({ version: fc.constant(0), program: fc.uint8Array({ minLength: 32, maxLength: 32 }) }),
          fc.record({ version: fc.integer({ min: 1, max: 16 }), program: fc.uint8Array({ minLength: 2, maxLength: 40 }) }),
        ),
        (hrp, { version, program }) => {
          expect(segwitAddress(hrp, version, program, 0, program.length)).toBe(
            bitcoin.address.toBech32(Buffer.from(program), version, hrp),
          );
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('refuses what has no segwit address', () => {
    const program = new Uint8Array(41);
    expect(() => segwitAddress('bc', 1, program, 0, 41)).toThrow(expect.objectContaining({ name: 'BaseError', code: 'input_invalid' }));
    expect(() => segwitAddress('bc', 17, program, 0, 20)).toThrow(expect.objectContaining({ name: 'BaseError', code: 'input_invalid' }));
    expect(() => segwitAddress('BC', 0, program, 0, 20)).toThrow(expect.objectContaining({ name: 'BaseError', code: 'input_invalid' }));
  });
});
