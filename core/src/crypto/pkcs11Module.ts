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

/** The slot holding the token named by label (preferred: slot ids change as tokens come and go) or by slot id. */
export function findSlot(p11: Pkcs11, where: { slot?: number; tokenLabel?: string }): Buffer {
  const slots = p11.C_GetSlotList(true);
  if (where.tokenLabel !== undefined) {
    const found = slots.filter((s) => p11.C_GetTokenInfo(s).label.trim() === where.tokenLabel);
    if (found.length === 0) throw new BaseError('config_invalid', `masterKey.pkcs11: no token labelled "${where.tokenLabel}" is present`);
    if (found.length > 1)
      throw new BaseError('config_invalid', `masterKey.pkcs11: ${found.length} tokens are labelled "${where.tokenLabel}"; name it by slot`);
    return found[0] as Buffer;
  }
  const found = slots.find((s) => s.readUIntLE(0, Math.min(s.length, 6)) === where.slot);
  if (!found) throw new BaseError('config_invalid', `masterKey.pkcs11: no token in slot ${where.slot}`);
  return found;
}

/** A token's refusal as one line naming the cause (the PKCS#11 return code), never a stack. */
export function tokenRefusal(what: string, cause: unknown): BaseError {
  const code = cause instanceof Error ? cause.message.split(':')[0] : String(cause);
  const why =
    code === 'CKR_PIN_INCORRECT'
      ? 'the token refused the PIN (CKR_PIN_INCORRECT); check pinEnv/pinFile'
      : code === 'CKR_PIN_LOCKED'
        ? 'the token locked the PIN after too many wrong tries (CKR_PIN_LOCKED); the security officer must reset it'
        : `${what} failed (${code})`;
  return new BaseError('config_invalid', `masterKey.pkcs11: ${why}`);
}

/**
 * A session on the token `where` names, logged in as its user. A log-in is per token and process:
 * a second session (the current and the previous key of a rotation in one token, a signer beside
 * the master key) finds the token logged in already and goes on.
 */
export function openUserSession(p11: Pkcs11, where: { slot?: number; tokenLabel?: string; pin: string }, rw = false): Buffer {
  const lib = pkcs11Lib();
  let session: Buffer;
  try {
    session = p11.C_OpenSession(findSlot(p11, where), lib.CKF_SERIAL_SESSION | (rw ? lib.CKF_RW_SESSION : 0));
  } catch (cause) {
    if (cause instanceof BaseError) throw cause;
    throw tokenRefusal('opening a session', cause);
  }
  try {
    p11.C_Login(session, lib.CKU_USER, where.pin);
  } catch (cause) {
    if (!(cause instanceof Error && cause.message.startsWith('CKR_USER_ALREADY_LOGGED_IN'))) {
      p11.C_CloseSession(session);
      throw tokenRefusal('log-in', cause);
    }
  }
  return session;
}

/** The token objects of class `cls` labelled `label` (at most two: one is expected, two is an error the caller names). */
export function objectsLabelled(p11: Pkcs11, session: Buffer, cls: number, label: string): Buffer[] {
  const lib = pkcs11Lib();
  p11.C_FindObjectsInit(session, [
    { type: lib.CKA_CLASS, value: cls },
    { type: lib.CKA_LABEL, value: label },
  ]);
  const found = p11.C_FindObjects(session, 2);
  p11.C_FindObjectsFinal(session);
  return found;
}
