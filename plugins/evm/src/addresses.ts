import { ethers } from './sdk';
import { BaseError, type DerivedAddress } from '@walletd/plugin-kit';

const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** Any 20-byte hex address; mixed case must carry a valid EIP-55 checksum. */
export function validateEvmAddress(address: string): boolean {
  if (!HEX_ADDRESS.test(address)) return false;
  const body = address.slice(2);
  if (body === body.toLowerCase() || body === body.toUpperCase()) return true;
  try {
    return ethers().getAddress(address) === address;
  } catch {
    return false;
  }
}

/** The match form: lowercase hex, what the detector compares against. */
export function evmMatchKey(address: string): string {
  if (!validateEvmAddress(address)) throw new BaseError('invalid_address', `"${address}" is not a valid EVM address`);
  return address.toLowerCase();
}

/** BIP-44 coin type 60, account 0, external chain: m/44'/60'/0'/0/index (what MetaMask and Ledger use). */
export function deriveEvmAddress(seed: Uint8Array, index: number): DerivedAddress {
  if (!Number.isInteger(index) || index < 0 || index >= 2 ** 31) throw new BaseError('input_invalid', `invalid address index ${index}`);
  const path = `m/44'/60'/0'/0/${index}`;
  const node = ethers().HDNodeWallet.fromSeed(seed).derivePath(path);
  return { address: node.address, matchKey: node.address.toLowerCase(), path };
}
