import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { BaseError } from '@walletd/plugin-kit';

/**
 * Envelope encryption of secrets at rest: each secret gets its own random data key (AES-256-GCM),
 * the data key is wrapped by the master key (AES-256-GCM). Both layers bind associated data that
 * names the owning record (e.g. "wallet:42"), so a ciphertext copied onto another record fails
 * to open instead of yielding the other record's secret.
 */
export interface Envelope {
  v: 1;
  /** Master key id (first bytes of its fingerprint) so a key rotation can tell envelopes apart. */
  kid: string;
  /** Wrapped data key: iv(12) | tag(16) | ciphertext(32), base64. */
  wdk: string;
  /** Secret: iv(12) | tag(16) | ciphertext, base64. */
  ct: string;
}

/**
 * Where the master key lives. The envelope code only asks it to wrap and unwrap 32-byte data keys,
 * so a key file and a PKCS#11 token (whose key never leaves it) look the same to the callers.
 */
export interface MasterKeyBackend {
  /** "file" or "pkcs11", the label of walletd_master_key_unwraps_total. */
  readonly kind: string;
  /** Stable hex fingerprint of the key (never the key), stored in the database at first start. */
  fingerprint(): string;
  /** Data keys unwrapped so far, for walletd_master_key_unwraps_total. */
  readonly unwraps: number;
  wrap(dataKey: Buffer, aad: string): Buffer;
  unwrap(box: Buffer, aad: string): Buffer;
}

/** A master key held in process memory: from the key file or WALLETD_MASTER_KEY. */
export class MemoryKeyBackend implements MasterKeyBackend {
  readonly kind = 'file';
  readonly #key: Buffer;
  unwraps = 0;
  constructor(key: Buffer) {
    if (key.length !== 32) throw new BaseError('config_invalid', 'master key must be 32 bytes');
    this.#key = Buffer.from(key);
  }
  fingerprint(): string {
    return fingerprint(this.#key);
  }
  wrap(dataKey: Buffer, aad: string): Buffer {
    return gcmSeal(this.#key, dataKey, aad);
  }
  unwrap(box: Buffer, aad: string): Buffer {
    this.unwraps += 1;
    return gcmOpen(this.#key, box, aad);
  }
}

/**
 * The master key walletd seals with, and during a rotation the key the older envelopes are still
 * wrapped under (`masterKey.previous`): each envelope names its key (`kid`), so opening picks the
 * right one and `walletd keys rotate` re-wraps envelope by envelope, resumable where it stopped.
 */
export class MasterKey {
  readonly id: string;
  readonly backend: MasterKeyBackend;
  readonly previous: MasterKey | null;

  constructor(key: Buffer | MasterKeyBackend, previous: MasterKey | null = null) {
    this.backend = Buffer.isBuffer(key) ? new MemoryKeyBackend(key) : key;
    this.id = this.backend.fingerprint().slice(0, 16);
    this.previous = previous?.id === this.id ? null : previous;
  }

  /** Hex fingerprint stored in the database to detect a start with the wrong master key. */
  fingerprint(): string {
    return this.backend.fingerprint();
  }

  seal(plaintext: Buffer, context: string): Envelope {
    const dataKey = randomBytes(32);
    try {
      return {
        v: 1,
        kid: this.id,
        wdk: this.backend.wrap(dataKey, `walletd:dk:v1:${context}`).toString('base64'),
        ct: gcmSeal(dataKey, plaintext, `walletd:secret:v1:${context}`).toString('base64'),
      };
    } finally {
      dataKey.fill(0);
    }
  }

  open(envelope: Envelope, context: string): Buffer {
    const dataKey = this.#unwrap(envelope, context);
    try {
      return gcmOpen(dataKey, Buffer.from(envelope.ct, 'base64'), `walletd:secret:v1:${context}`);
    } finally {
      dataKey.fill(0);
    }
  }

  /**
   * The same secret under this key: only the data key is re-wrapped (the secret's own ciphertext
   * is kept), after checking that it still opens, so a rotation never stores an envelope it broke.
   */
  rewrap(envelope: Envelope, context: string): Envelope {
    const dataKey = this.#unwrap(envelope, context);
    try {
      gcmOpen(dataKey, Buffer.from(envelope.ct, 'base64'), `walletd:secret:v1:${context}`).fill(0);
      return { v: 1, kid: this.id, wdk: this.backend.wrap(dataKey, `walletd:dk:v1:${context}`).toString('base64'), ct: envelope.ct };
    } finally {
      dataKey.fill(0);
    }
  }

  #unwrap(envelope: Envelope, context: string): Buffer {
    if (envelope?.v !== 1) throw new BaseError('internal', 'unsupported secret envelope version');
    const holder = envelope.kid === this.id ? this : envelope.kid === this.previous?.id ? this.previous : null;
    if (!holder) throw new BaseError('internal', 'secret was sealed under a different master key');
    return holder.backend.unwrap(Buffer.from(envelope.wdk, 'base64'), `walletd:dk:v1:${context}`);
  }
}

function fingerprint(key: Buffer): string {
  return createHash('sha256').update('walletd:master-key-fingerprint:v1').update(key).digest('hex');
}

function gcmSeal(key: Buffer, plaintext: Buffer, aad: string): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad));
  const ct = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ct]);
}

function gcmOpen(key: Buffer, box: Buffer, aad: string): Buffer {
  if (box.length < 28) throw new BaseError('internal', 'secret envelope is truncated');
  const decipher = createDecipheriv('aes-256-gcm', key, box.subarray(0, 12));
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(box.subarray(12, 28));
  try {
    return Buffer.concat([decipher.update(box.subarray(28)), decipher.final()]);
  } catch (cause) {
    // Do not say which layer failed: tampering and a wrong record look the same to an attacker.
    throw new BaseError('internal', 'secret envelope failed authentication', { cause });
  }
}
