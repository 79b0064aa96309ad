import { BaseError } from '@walletd/plugin-kit';
import type { Pkcs11MasterKeyConfig } from './pkcs11KeyBackend';
import { acquireModule, objectsLabelled, openUserSession, pkcs11Lib, releaseModule } from './pkcs11Module';

/**
 * Creates the AES-256 master key inside the token (`walletd keys init-token`): a token object that
 * can encrypt and decrypt but is never readable or wrappable out (CKA_SENSITIVE, not EXTRACTABLE).
 * Refuses when a key with that label exists, so a second run cannot shadow the first key.
 */
export function initTokenMasterKey(config: Pkcs11MasterKeyConfig): void {
  const lib = pkcs11Lib();
  const p11 = acquireModule(config.module);
  try {
    const session = openUserSession(p11, config, true);
    if (objectsLabelled(p11, session, lib.CKO_SECRET_KEY, config.keyLabel).length > 0)
      throw new BaseError('conflict', `the token already holds a key labelled "${config.keyLabel}"`);
    const label = { type: lib.CKA_LABEL, value: config.keyLabel };
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
