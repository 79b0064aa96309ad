const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** ECDSA signatures are malleable: (r, n − s) verifies too; chains accept only the low one (BIP-62, EIP-2). */
export function lowS(sig: Uint8Array): Uint8Array {
  const r = Buffer.from(sig.subarray(0, 32));
  let s = BigInt(`0x${Buffer.from(sig.subarray(32, 64)).toString('hex')}`);
  if (s > SECP256K1_N / 2n) s = SECP256K1_N - s;
  return Uint8Array.from(Buffer.concat([r, Buffer.from(s.toString(16).padStart(64, '0'), 'hex')]));
}
