import { pbkdf2Sync } from 'node:crypto';
import { u8aToHex } from '@polkadot/util';
import { BaseError, type DerivedAddress } from '@walletd/plugin-kit';
import { utilCrypto } from './sdk';

/** An assets-pallet id as the operator lists it (`contract: "1984"`): a u32 in decimal. */
const ASSET_ID = /^(0|[1-9]\d{0,9})$/;

export function isAssetId(text: string): boolean {
  return ASSET_ID.test(text) && BigInt(text) <= 0xffffffffn;
}

/** The 32-byte account id of an SS58 address (any network prefix, checksum checked) or of a 0x-hex public key; null otherwise. */
export function accountIdOf(address: string): Uint8Array | null {
  if (typeof address !== 'string' || address.length === 0) return null;
  if (address.startsWith('0x') && !/^0x[0-9a-fA-F]{64}$/.test(address)) return null;
  try {
    const key = utilCrypto().decodeAddress(address);
    // 1-8 byte account indices and 20-byte (EVM) keys are not accounts a transfer can name here.
    return key.length === 32 ? key : null;
  } catch {
    return null;
  }
}

export function validatePolkadotAddress(address: string): boolean {
  return accountIdOf(address) !== null;
}

/**
 * The match form: the account id as lowercase 0x-hex, so every SS58 prefix of one key is one
 * key. An allow-listed asset id (`"1984"`) is its own match form.
 */
export function polkadotMatchKey(address: string): string {
  if (isAssetId(address)) return String(Number(address));
  const key = accountIdOf(address);
  if (!key) throw new BaseError('invalid_address', `"${address}" is not a valid Polkadot address`);
  return u8aToHex(key);
}

/** The display form: SS58 with the network's prefix. */
export function formatPolkadotAddress(address: string, prefix: number): string {
  const key = accountIdOf(address);
  if (!key) throw new BaseError('invalid_address', `"${address}" is not a valid Polkadot address`);
  return utilCrypto().encodeAddress(key, prefix);
}

/** Deposit address `index` is the hard derivation `//index` of the wallet's phrase (`<mnemonic>//index`). */
export const polkadotPath = (index: number): string => `//${index}`;

export function checkIndex(index: number): void {
  if (!Number.isInteger(index) || index < 0 || index >= 0x80000000) throw new BaseError('input_invalid', `invalid address index ${index}`);
}

/**
 * The sr25519 mini-secret polkadot.js and subkey make from a phrase: PBKDF2-HMAC-SHA512 over the
 * BIP-39 entropy (not the phrase), salt "mnemonic", 2048 rounds, first 32 bytes
 * (`mnemonicToMiniSecret`).
 */
export function miniSecretFromEntropy(entropy: Uint8Array): Uint8Array {
  const out = pbkdf2Sync(entropy, 'mnemonic', 2048, 64, 'sha512');
  const mini = new Uint8Array(out.subarray(0, 32));
  out.fill(0);
  return mini;
}

export interface Sr25519Pair {
  publicKey: Uint8Array;
  secretKey: Uint8Array;
}

/** The sr25519 pair of address `index`: what `keyring.addFromUri('<mnemonic>//index')` and `subkey inspect` give. */
export function polkadotKeyPair(entropy: Uint8Array, index: number): Sr25519Pair {
  checkIndex(index);
  const mini = miniSecretFromEntropy(entropy);
  const root = utilCrypto().sr25519PairFromSeed(mini);
  mini.fill(0);
  try {
    return utilCrypto().keyFromPath(root, utilCrypto().keyExtractPath(polkadotPath(index)).path, 'sr25519');
  } finally {
    root.secretKey.fill(0);
  }
}

export function derivePolkadotAddress(entropy: Uint8Array, index: number, prefix: number): DerivedAddress {
  const pair = polkadotKeyPair(entropy, index);
  pair.secretKey.fill(0);
  return { address: utilCrypto().encodeAddress(pair.publicKey, prefix), matchKey: u8aToHex(pair.publicKey), path: polkadotPath(index) };
}
