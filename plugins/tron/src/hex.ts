import { BaseError } from '@walletd/plugin-kit';
/** Small, dependency-free hex helpers shared by the worker-side detector and the main thread. */

const HEX = /^[0-9a-f]*$/;

export const isLowerHex = (s: string): boolean => s.length % 2 === 0 && HEX.test(s);

export function hexToBytes(hex: string): Uint8Array {
  const clean = hex.startsWith('0x') ? hex.slice(2) : hex;
  if (clean.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(clean)) throw new BaseError('encoding_invalid', `not hex: ${clean.slice(0, 16)}`);
  return Uint8Array.from(Buffer.from(clean, 'hex'));
}

export const bytesToHex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
