import { createPublicKey, verify } from 'node:crypto';
import { derivePrivateKey, publicKeyOf, signSighashPreimage } from './secp256k1';
import { sha256 } from './hash';

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** r and s of a DER signature. */
function rs(der: Buffer): [Buffer, Buffer] {
  const rLen = der[3] as number;
  const r = der.subarray(4, 4 + rLen);
  const s = der.subarray(6 + rLen, 6 + rLen + (der[5 + rLen] as number));
  const to32 = (b: Buffer) => Buffer.from(b.toString('hex').replace(/^00/, '').padStart(64, '0'), 'hex');
  return [to32(r), to32(s)];
}

describe('secp256k1 from node:crypto', () => {
  it("derives BIP-32 test vector 1's m/0'/1/2'/2/1000000000 key", () => {
    const seed = Buffer.from('000102030405060708090a0b0c0d0e0f', 'hex');
    expect(derivePrivateKey(seed, "m/0'/1/2'/2/1000000000").toString('hex')).toBe(
      '471b76e389e528d6de6d816857e012c5455051cad6660850e58372a6c3e6e7c8',
    );
  });

  it('signs the double-SHA-256 of the preimage, DER-encoded with a low S', () => {
    const key = Buffer.alloc(32, 7);
    const preimage = Buffer.from('a sighash preimage');
    const pub = publicKeyOf(key);
    const jwk = createPublicKey({
      key: Buffer.concat([Buffer.from('3036301006072a8648ce3d020106052b8104000a032200', 'hex'), pub]),
      format: 'der',
      type: 'spki',
    });
    for (let i = 0; i < 8; i++) {
      const der = signSighashPreimage(key, preimage);
      expect(der[0]).toBe(0x30);
      const [r, s] = rs(der);
      expect(BigInt(`0x${s.toString('hex')}`) <= N / 2n).toBe(true);
      // What a node checks: ECDSA over SHA-256(SHA-256(preimage)).
      expect(verify('sha256', sha256(preimage), { key: jwk, dsaEncoding: 'ieee-p1363' }, Buffer.concat([r, s]))).toBe(true);
    }
  });
});
