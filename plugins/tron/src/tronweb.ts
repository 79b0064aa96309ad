/**
 * The one place tronweb is loaded (its CommonJS build): address encoding, key derivation (its
 * bundled ethers HD wallet), signing and signature recovery. Never imported by the detect module,
 * which runs in worker threads on plain hex. Required on the first call that needs it, not with
 * the plugin (6 MB of heap: plugin-kit's onFirstUse says why).
 */
import { secp256k1 } from '@noble/curves/secp256k1';
import { BaseError, onFirstUse } from '@walletd/plugin-kit';

const utils = onFirstUse(() => (require('tronweb') as typeof import('tronweb')).utils);
const crypto = () => utils().crypto;

/** base58check of the bytes (0x41 + 20). */
export const base58CheckAddress = (bytes: Uint8Array): string => crypto().getBase58CheckAddress(Array.from(bytes));

/** The payload of a base58check string with a valid checksum and the 0x41 prefix, else null. */
export function decodeBase58CheckAddress(address: string): Uint8Array | null {
  if (!crypto().isAddressValid(address)) return null;
  const bytes = crypto().decode58Check(address);
  return bytes ? Uint8Array.from(bytes) : null;
}

/** 0x41 + the 20 bytes of the address a secp256k1 private key controls. */
export const addressOfPrivateKey = (key: Uint8Array): Uint8Array => Uint8Array.from(crypto().getAddressFromPriKey(key));

/** 0x41 + the 20 bytes of the address of an uncompressed secp256k1 public key (65 bytes, 0x04…). */
export const addressOfPublicKey = (publicKey: Uint8Array): Uint8Array => Uint8Array.from(crypto().computeAddress(publicKey));

/** A 65-byte recoverable signature (r ‖ s ‖ v, v = 27 + recovery id) of a 32-byte hash. */
export const signHash = (hash: Uint8Array, key: Uint8Array): string => crypto().ECKeySign(hash, key);

/**
 * The signer of a hash, as 41-prefixed lowercase hex. tronweb's `ecRecover` (ethers) refuses a
 * signature whose s is in the upper half, which java-tron accepts and mainnet carries (the recorded
 * d8b11250 is one): the public key is recovered with @noble/curves, the address computed by tronweb.
 */
export function recoverSigner(hashHex: string, signatureHex: string): string {
  const sig = Buffer.from(signatureHex, 'hex');
  if (sig.length !== 65) throw new BaseError('encoding_invalid', 'a signature is 65 bytes');
  const v = sig[64] as number;
  const recovery = v >= 27 ? v - 27 : v;
  if (recovery !== 0 && recovery !== 1) throw new BaseError('encoding_invalid', `recovery byte ${v}`);
  const point = secp256k1.Signature.fromCompact(sig.subarray(0, 64)).addRecoveryBit(recovery).recoverPublicKey(hashHex);
  return Buffer.from(crypto().computeAddress(point.toRawBytes(false))).toString('hex');
}

/** The BIP-32 private key at `path` from a BIP-39 seed, as 32 bytes. */
export function hdPrivateKey(seed: Uint8Array, path: string): Uint8Array {
  const node = utils().ethersUtils.ethersHDNodeWallet.fromSeed(seed).derivePath(path);
  return Uint8Array.from(Buffer.from(node.privateKey.slice(2), 'hex'));
}
