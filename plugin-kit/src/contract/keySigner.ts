/**
 * A key that signs where it lives (issue 45 §3–4): a PKCS#11 token here; a cloud KMS is another
 * implementation of the same two calls. The private key never reaches walletd.
 */
export interface KeySigner {
  readonly curve: 'secp256k1' | 'ed25519';
  /** secp256k1: the uncompressed point (65 bytes, 0x04…); ed25519: the 32-byte key. */
  publicKey(): Uint8Array;
  /**
   * secp256k1: signs a 32-byte digest, `r‖s` (64 bytes) with a low `s` (BIP-62 / EIP-2), the
   * recovery id worked out by the caller; ed25519: signs the whole message (64 bytes). A token
   * answers at once; a cloud KMS over the network (a promise): callers await either.
   */
  sign(data: Uint8Array): Uint8Array | Promise<Uint8Array>;
  close(): void;
}

/** A signer that answers at once (a PKCS#11 token in the process). */
export interface SyncKeySigner extends KeySigner {
  sign(data: Uint8Array): Uint8Array;
}
