import { createHmac, createPrivateKey, createPublicKey, type KeyObject, sign as edSign } from 'node:crypto';
import { BaseError } from '../errors';

/**
 * SLIP-10 ed25519 keys (every level hardened), shared by the ed25519 chains (Solana, TON): what
 * Phantom, Solflare, Ledger and `solana-keygen` restore. Node's crypto only: synchronous.
 */
export const HARDENED = 0x80000000;
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * SLIP-10 ed25519 (every level hardened): what Phantom, Solflare, Backpack and `solana-keygen
 * recover 'prompt://?full-path=…'` restore. Returns the 32-byte private key (the ed25519 seed).
 */
export function slip10Ed25519(seed: Uint8Array, path: string): Buffer {
  const segments = path.split('/');
  if (segments[0] !== 'm') throw new BaseError('input_invalid', `invalid path ${path}`);
  let I = createHmac('sha512', 'ed25519 seed').update(seed).digest();
  for (const s of segments.slice(1)) {
    if (!/^\d+'$/.test(s)) throw new BaseError('input_invalid', `ed25519 derivation is hardened only: ${path}`);
    const index = Number(s.slice(0, -1));
    if (index >= HARDENED) throw new BaseError('input_invalid', `invalid index in ${path}`);
    const data = Buffer.alloc(37);
    I.copy(data, 1, 0, 32);
    data.writeUInt32BE(index + HARDENED, 33);
    const next = createHmac('sha512', I.subarray(32)).update(data).digest();
    I.fill(0);
    data.fill(0);
    I = next;
  }
  const key = Buffer.from(I.subarray(0, 32));
  I.fill(0);
  return key;
}

/** The key object of a 32-byte ed25519 private key (node crypto: synchronous). */
export function ed25519Key(privateKey: Uint8Array): KeyObject {
  const der = Buffer.concat([PKCS8_ED25519, privateKey]);
  try {
    return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  } finally {
    der.fill(0);
  }
}

export function publicKeyOf(key: KeyObject): Uint8Array {
  const spki = createPublicKey(key).export({ format: 'der', type: 'spki' });
  return new Uint8Array(spki.subarray(spki.length - 32));
}

export const signEd25519 = (key: KeyObject, message: Uint8Array): Uint8Array => new Uint8Array(edSign(null, message, key));
