import { BaseError, type DerivedAddress } from '@walletd/plugin-kit';
import { addressOfPrivateKey, addressOfPublicKey, base58CheckAddress, decodeBase58CheckAddress, hdPrivateKey } from './tronweb';

/** Every Tron network (mainnet, nile, shasta) uses the 0x41 prefix: base58check addresses start with T. */
const PREFIX = 0x41;
const BASE58 = /^T[1-9A-HJ-NP-Za-km-z]{33}$/;
const HEX20 = /^[0-9a-f]{40}$/;
const HEX21 = /^41[0-9a-fA-F]{40}$/;

/** The 21 bytes (0x41 + 20) of a base58check T-address, or null (bad checksum, other prefix, wrong length). */
function decodeBase58(address: string): Uint8Array | null {
  if (!BASE58.test(address)) return null;
  const bytes = decodeBase58CheckAddress(address);
  if (bytes?.length !== 21 || bytes[0] !== PREFIX) return null;
  return bytes;
}

/**
 * The display form only: a base58check address with the 0x41 prefix (`T…`, 34 characters) and a
 * valid checksum. EVM forms (`0x…`), bare hex, other prefixes and bad checksums are refused: a
 * destination typed for another chain must not be paid on this one.
 */
export function validateTronAddress(address: string): boolean {
  return decodeBase58(address) !== null;
}

/**
 * The match form: the 20-byte account id as 40 lowercase hex characters, without the 0x41 prefix
 * (what a Transfer log topic carries, and what the shared watched set stores as is). Accepts the
 * base58 form, the node's 41-prefixed hex (visible=false) and the match form itself.
 */
export function tronMatchKey(address: string): string {
  if (HEX20.test(address)) return address;
  if (HEX21.test(address)) return address.slice(2).toLowerCase();
  const bytes = decodeBase58(address);
  if (!bytes) throw new BaseError('invalid_address', `"${address}" is not a valid Tron address`);
  return Buffer.from(bytes.subarray(1)).toString('hex');
}

/** base58check of 0x41 + the 20 bytes; accepts any form `tronMatchKey` accepts. */
export function formatTronAddress(address: string): string {
  const key = tronMatchKey(address);
  return base58CheckAddress(Uint8Array.from([PREFIX, ...Buffer.from(key, 'hex')]));
}

/** The node's hex form (visible=false): 41 + the match form. */
export const tronHexAddress = (address: string): string => `41${tronMatchKey(address)}`;

export const tronPath = (index: number): string => {
  if (!Number.isInteger(index) || index < 0 || index >= 2 ** 31) throw new BaseError('validation_failed', `invalid address index ${index}`);
  return `m/44'/195'/0'/0/${index}`;
};

/** The private key at m/44'/195'/0'/0/index (SLIP-44 coin type 195, BIP-32 secp256k1), as bytes the caller zeroes. */
export function deriveTronKey(seed: Uint8Array, index: number): Uint8Array {
  return hdPrivateKey(seed, tronPath(index));
}

/** The match form of the address a private key controls. */
export function matchKeyOfKey(privateKey: Uint8Array): string {
  return Buffer.from(addressOfPrivateKey(privateKey).subarray(1)).toString('hex');
}

/** The match form of the address a secp256k1 public key (a token's or a KMS's key) controls. */
export function matchKeyOfPublicKey(publicKey: Uint8Array): string {
  return Buffer.from(addressOfPublicKey(publicKey).subarray(1)).toString('hex');
}

/** BIP-44 coin type 195, account 0, external chain: m/44'/195'/0'/0/index (TronLink, Ledger, tronweb's default path). */
export function deriveTronAddress(seed: Uint8Array, index: number): DerivedAddress {
  const path = tronPath(index);
  const key = deriveTronKey(seed, index);
  try {
    const matchKey = matchKeyOfKey(key);
    return { address: formatTronAddress(matchKey), matchKey, path };
  } finally {
    key.fill(0);
  }
}
