import { createRequire } from 'node:module';
import { BaseError } from '@walletd/plugin-kit';

export type Pkcs11Lib = typeof import('pkcs11js');
export type Pkcs11 = import('pkcs11js').PKCS11;

// Cryptoki is initialised once per module per process (a second C_Initialize fails with
// CKR_CRYPTOKI_ALREADY_INITIALIZED), so every user of a module shares one loaded handle.
const loaded = new Map<string, { p11: Pkcs11; users: number }>();

/** pkcs11js is an optional native dependency: loaded only when the pkcs11 form is configured. */
export function pkcs11Lib(): Pkcs11Lib {
  try {
    return createRequire(__filename)('pkcs11js') as Pkcs11Lib;
  } catch (cause) {
    const why = cause instanceof Error ? cause.message.split('\n')[0] : String(cause);
    throw new BaseError('config_invalid', `pkcs11js is not built on this machine: ${why}; masterKey.pkcs11 needs it`);
  }
}

export function acquireModule(path: string): Pkcs11 {
  const have = loaded.get(path);
  if (have) {
    have.users += 1;
    return have.p11;
  }
  const lib = pkcs11Lib();
  const p11 = new lib.PKCS11();
  try {
    p11.load(path);
    p11.C_Initialize();
  } catch (cause) {
    const code = cause instanceof Error ? cause.message.split(/[:\n]/)[0] : String(cause);
    throw new BaseError('config_invalid', `masterKey.pkcs11: cannot load the module ${path} (${code})`);
  }
  loaded.set(path, { p11, users: 1 });
  return p11;
}

export function releaseModule(path: string): void {
  const have = loaded.get(path);
  if (!have) return;
  have.users -= 1;
  if (have.users > 0) return;
  loaded.delete(path);
  try {
    have.p11.C_Finalize();
  } catch {
    // At exit: nothing left to tell the operator.
  }
}
