import { createHash, randomBytes } from 'node:crypto';
import { BaseError } from '@walletd/plugin-kit';
import type { MasterKeyBackend } from './envelope';
import { acquireModule, objectsLabelled, openUserSession, type Pkcs11, type Pkcs11Lib, pkcs11Lib, releaseModule } from './pkcs11Module';

export interface Pkcs11MasterKeyConfig {
  /** Path of the vendor's PKCS#11 library, e.g. /usr/lib/softhsm/libsofthsm2.so. */
  module: string;
  slot?: number;
  tokenLabel?: string;
  pin: string;
  keyLabel: string;
}

/**
 * The master key is an AES-256 key inside a PKCS#11 token (CKA_EXTRACTABLE false, CKA_SENSITIVE
 * true): data keys are encrypted with CKM_AES_GCM inside the token, so the key never reaches this
 * process. One session per process; a session the token dropped (CKR_SESSION_HANDLE_INVALID,
 * token re-inserted) is reopened once per call.
 */
export class Pkcs11KeyBackend implements MasterKeyBackend {
  readonly kind = 'pkcs11';
  readonly #lib: Pkcs11Lib;
  readonly #p11: Pkcs11;
  readonly #config: Pkcs11MasterKeyConfig;
  #session: Buffer | null = null;
  #key: Buffer | null = null;
  #fingerprint: string | null = null;
  /** Data keys unwrapped, for walletd_master_key_unwraps_total. */
  unwraps = 0;

  constructor(config: Pkcs11MasterKeyConfig) {
    this.#config = config;
    this.#lib = pkcs11Lib();
    this.#p11 = acquireModule(config.module);
    try {
      this.#open();
    } catch (cause) {
      releaseModule(config.module);
      throw cause;
    }
  }

  #open(): void {
    const session = openUserSession(this.#p11, this.#config);
    const keys = objectsLabelled(this.#p11, session, this.#lib.CKO_SECRET_KEY, this.#config.keyLabel);
    if (keys.length !== 1) {
      const found = keys.length === 0 ? 'no secret key' : 'more than one secret key';
      throw new BaseError(
        'config_invalid',
        `masterKey.pkcs11: the token holds ${found} labelled "${this.#config.keyLabel}" (create it with walletd keys init-token)`,
      );
    }
    this.#session = session;
    this.#key = keys[0] as Buffer;
  }

  /** Runs a token call, reopening the session once if the token dropped it. */
  #call<T>(fn: (session: Buffer, key: Buffer) => T): T {
    try {
      return fn(this.#session as Buffer, this.#key as Buffer);
    } catch (cause) {
      const dropped =
        cause instanceof Error && /^CKR_(SESSION_HANDLE_INVALID|SESSION_CLOSED|DEVICE_REMOVED|TOKEN_NOT_PRESENT)/.test(cause.message);
      if (!dropped) throw cause;
      this.#open();
      return fn(this.#session as Buffer, this.#key as Buffer);
    }
  }

  // CK_GCM_PARAMS as PKCS#11 v2.40 lays it out (with ulIvBits), which SoftHSM2 2.6 and current
  // HSMs read: the older layout (CK_PARAMS_AES_GCM) makes them read the AAD from the wrong field.
  #gcm(iv: Buffer, aad: string) {
    const lib = this.#lib;
    const parameter = { type: lib.CK_PARAMS_AES_GCM_v240, iv, ivBits: iv.length * 8, aad: Buffer.from(aad), tagBits: 128 };
    return { mechanism: lib.CKM_AES_GCM, parameter };
  }

  /**
   * GCM of a zero block under a fixed label and zero IV: deterministic, says nothing about the key
   * (the zero IV is never drawn for real data: those IVs are random 96-bit values).
   */
  fingerprint(): string {
    if (this.#fingerprint) return this.#fingerprint;
    const tag = this.#call((s, k) => {
      this.#p11.C_EncryptInit(s, this.#gcm(Buffer.alloc(12), 'walletd:master-key-fingerprint:v1'), k);
      return Buffer.from(this.#p11.C_Encrypt(s, Buffer.alloc(16), Buffer.alloc(32)));
    });
    this.#fingerprint = createHash('sha256').update('walletd:pkcs11-fingerprint:v1').update(tag).digest('hex');
    return this.#fingerprint;
  }

  /** Same layout as the file form: iv(12) | tag(16) | ciphertext. */
  wrap(dataKey: Buffer, aad: string): Buffer {
    const iv = randomBytes(12);
    const out = this.#call((s, k) => {
      this.#p11.C_EncryptInit(s, this.#gcm(iv, aad), k);
      return Buffer.from(this.#p11.C_Encrypt(s, dataKey, Buffer.alloc(dataKey.length + 16)));
    });
    return Buffer.concat([iv, out.subarray(out.length - 16), out.subarray(0, out.length - 16)]);
  }

  unwrap(box: Buffer, aad: string): Buffer {
    if (box.length < 28) throw new BaseError('internal', 'secret envelope is truncated');
    const input = Buffer.concat([box.subarray(28), box.subarray(12, 28)]);
    this.unwraps += 1;
    try {
      return this.#call((s, k) => {
        this.#p11.C_DecryptInit(s, this.#gcm(box.subarray(0, 12), aad), k);
        return Buffer.from(this.#p11.C_Decrypt(s, input, Buffer.alloc(input.length)));
      });
    } catch (cause) {
      throw new BaseError('internal', 'secret envelope failed authentication', { cause });
    }
  }

  close(): void {
    try {
      if (this.#session) this.#p11.C_CloseSession(this.#session);
    } catch {
      // Closing at exit: the token drops the session anyway.
    }
    if (this.#session) releaseModule(this.#config.module);
    this.#session = null;
  }
}
