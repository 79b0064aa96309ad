import type { KeyObject } from 'node:crypto';
import { BaseError, type DerivedAddress, HARDENED, ed25519Key, publicKeyOf, signEd25519, slip10Ed25519 } from '@walletd/plugin-kit';

import { parseTokenContract } from './programs';
import { solanaKit } from './sdk';

export { ed25519Key, publicKeyOf, signEd25519, slip10Ed25519 };

/** A base58 32-byte public key (an account address; program-derived addresses included). */
export function validateSolanaAddress(address: string): boolean {
  return solanaKit().isAddress(address);
}

/**
 * The match form is the address itself: base58 has one spelling per key (case matters), so the
 * detector compares the strings the node prints. An allow-listed token's `contract` may name its
 * program (`token-2022:<mint>`): its match form is the mint.
 */
export function solanaMatchKey(address: string): string {
  const { mint } = parseTokenContract(address);
  if (!solanaKit().isAddress(mint)) throw new BaseError('invalid_address', `"${address}" is not a valid Solana address`);
  return mint;
}

export const addressOfPublicKey = (publicKey: Uint8Array): string => solanaKit().getAddressDecoder().decode(publicKey);

/** Account i of the wallet: m/44'/501'/i'/0' (the path Phantom and Solflare use per account). */
export const solanaPath = (index: number): string => `m/44'/501'/${index}'/0'`;

export function checkIndex(index: number): void {
  if (!Number.isInteger(index) || index < 0 || index >= HARDENED) throw new BaseError('input_invalid', `invalid address index ${index}`);
}

/** The key of address `index` (the caller zeroes nothing: the key object holds the only copy). */
export function solanaKey(seed: Uint8Array, index: number): { key: KeyObject; address: string } {
  checkIndex(index);
  const privateKey = slip10Ed25519(seed, solanaPath(index));
  try {
    const key = ed25519Key(privateKey);
    return { key, address: addressOfPublicKey(publicKeyOf(key)) };
  } finally {
    privateKey.fill(0);
  }
}

export function deriveSolanaAddress(seed: Uint8Array, index: number): DerivedAddress {
  const { address } = solanaKey(seed, index);
  return { address, matchKey: address, path: solanaPath(index) };
}
