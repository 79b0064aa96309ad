import { createECDH, createHmac, createPrivateKey, sign } from 'node:crypto';
import { u32le } from './bytes';
import { sha256 } from './hash';

/** The curve's order. */
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const HARDENED = 0x80000000;

const toBig = (b: Uint8Array): bigint => BigInt(`0x${Buffer.from(b).toString('hex') || '0'}`);
const to32 = (n: bigint): Buffer => Buffer.from(n.toString(16).padStart(64, '0'), 'hex');

/** The compressed public key (33 bytes) of a private key, from OpenSSL's secp256k1. */
export function publicKeyOf(privateKey: Uint8Array): Buffer {
  const ecdh = createECDH('secp256k1');
  ecdh.setPrivateKey(privateKey);
  return ecdh.getPublicKey(null, 'compressed') as Buffer;
}

interface Node {
  key: Buffer;
  chainCode: Buffer;
}

function child(parent: Node, index: number): Node {
  const data =
    index >= HARDENED
      ? Buffer.concat([Buffer.from([0]), parent.key, u32le(index).reverse()])
      : Buffer.concat([publicKeyOf(parent.key), u32le(index).reverse()]);
  const I = createHmac('sha512', parent.chainCode).update(data).digest();
  const tweak = toBig(I.subarray(0, 32));
  const key = (tweak + toBig(parent.key)) % N;
  // Probability below 2^-127; BIP-32 says to skip the index, a wallet here refuses it instead.
  if (tweak >= N || key === 0n) throw new RangeError(`BIP-32 index ${index} gives no valid key`);
  return { key: to32(key), chainCode: I.subarray(32) };
}

/** BIP-32 private derivation from a BIP-39 seed along `m/…` (`'` marks a hardened step). */
export function derivePrivateKey(seed: Uint8Array, path: string): Buffer {
  const I = createHmac('sha512', 'Bitcoin seed').update(seed).digest();
  let node: Node = { key: I.subarray(0, 32), chainCode: I.subarray(32) };
  for (const step of path.split('/').slice(1)) {
    const hardened = step.endsWith("'");
    const n = Number.parseInt(hardened ? step.slice(0, -1) : step, 10);
    node = child(node, hardened ? n + HARDENED : n);
  }
  return node.key;
}

/** Minimal DER integer: no leading zeros, one 0x00 when the high bit is set. */
function derInteger(n: bigint): Buffer {
  let b = to32(n);
  while (b.length > 1 && b[0] === 0 && ((b[1] as number) & 0x80) === 0) b = b.subarray(1);
  if (((b[0] as number) & 0x80) !== 0) b = Buffer.concat([Buffer.from([0]), b]);
  return Buffer.concat([Buffer.from([0x02, b.length]), b]);
}

/**
 * ECDSA over a sighash, DER-encoded with low S (BIP-62/146: nodes relay no high-S signature).
 * OpenSSL hashes what it signs with SHA-256, so it is given SHA-256 of the preimage: the signed
 * digest is then SHA-256 twice, the bitcoin-family sighash. OpenSSL draws the nonce at random
 * (not RFC 6979): two signatures of one transaction differ, both valid.
 */
export function signSighashPreimage(privateKey: Uint8Array, preimage: Uint8Array): Buffer {
  const ecdh = createECDH('secp256k1');
  ecdh.setPrivateKey(privateKey);
  const pub = ecdh.getPublicKey();
  const key = createPrivateKey({
    format: 'jwk',
    key: {
      kty: 'EC',
      crv: 'secp256k1',
      d: Buffer.from(privateKey).toString('base64url'),
      x: pub.subarray(1, 33).toString('base64url'),
      y: pub.subarray(33).toString('base64url'),
    },
  });
  const rs = sign('sha256', sha256(preimage), { key, dsaEncoding: 'ieee-p1363' });
  const r = toBig(rs.subarray(0, 32));
  let s = toBig(rs.subarray(32));
  if (s > N / 2n) s = N - s;
  const body = Buffer.concat([derInteger(r), derInteger(s)]);
  return Buffer.concat([Buffer.from([0x30, body.length]), body]);
}
