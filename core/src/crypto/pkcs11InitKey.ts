import { BaseError } from '@walletd/plugin-kit';
import type { Pkcs11MasterKeyConfig } from './pkcs11KeyBackend';
import { acquireModule, findSlot, pkcs11Lib, tokenRefusal, releaseModule } from './pkcs11Module';

/**
 * Creates the AES-256 master key inside the token (`walletd keys init-token`): a token object that
 * can encrypt and decrypt but is never readable or wrappable out (CKA_SENSITIVE, not EXTRACTABLE).
 * Refuses when a key with that label exists, so a second run cannot shadow the first key.
 */
export function initTokenMasterKey(config: Pkcs11MasterKeyConfig): void {
  const lib = pkcs11Lib();
  const p11 = acquireModule(config.module);
  try {
    const slot = findSlot(p11, config);
    const session = p11.C_OpenSession(slot, lib.CKF_SERIAL_SESSION | lib.CKF_RW_SESSION);
    try {
      p11.C_Login(session, lib.CKU_USER, config.pin);
    } catch (cause) {
      // Log-in is per token and application: another session of this process may hold it already.
      if (!(cause instanceof Error && cause.message.startsWith('CKR_USER_ALREADY_LOGGED_IN'))) throw tokenRefusal('log-in', cause);
    }
    const label = { type: lib.CKA_LABEL, value: config.keyLabel };
    p11.C_FindObjectsInit(session, [{ type: lib.CKA_CLASS, value: lib.CKO_SECRET_KEY }, label]);
    const existing = p11.C_FindObjects(session, 1);
    p11.C_FindObjectsFinal(session);
    if (existing.length > 0) throw new BaseError('conflict', `the token already holds a key labelled "${config.keyLabel}"`);
    p11.C_GenerateKey(session, { mechanism: lib.CKM_AES_KEY_GEN }, [
      { type: lib.CKA_CLASS, value: lib.CKO_SECRET_KEY },
      { type: lib.CKA_KEY_TYPE, value: lib.CKK_AES },
      { type: lib.CKA_TOKEN, value: true },
      { type: lib.CKA_PRIVATE, value: true },
      label,
      { type: lib.CKA_VALUE_LEN, value: 32 },
      { type: lib.CKA_EXTRACTABLE, value: false },
      { type: lib.CKA_SENSITIVE, value: true },
      { type: lib.CKA_ENCRYPT, value: true },
      { type: lib.CKA_DECRYPT, value: true },
    ]);
    p11.C_CloseSession(session);
  } finally {
    releaseModule(config.module);
  }
}
