import { BaseError, type SyncKeySigner } from '@walletd/plugin-kit';
import { lowS } from './secp256k1LowS';
import { acquireModule, objectsLabelled, openUserSession, type Pkcs11, type Pkcs11Lib, pkcs11Lib, releaseModule } from './pkcs11Module';

export interface TokenKeyConfig {
  module: string;
  tokenLabel?: string;
  slot?: number;
  pin: string;
  /** Label of the key pair in the token. */
  keyLabel: string;
}

// DER of the curves' object identifiers, as CKA_EC_PARAMS takes them.
const SECP256K1_OID = Buffer.from('06052b8104000a', 'hex');
const ED25519_OID = Buffer.from('06032b6570', 'hex');
// PKCS#11 v3.0 constants that pkcs11js does not name.
const CKK_EC_EDWARDS = 0x40;
const CKM_EC_EDWARDS_KEY_PAIR_GEN = 0x1055;
const CKM_EDDSA = 0x1057;

interface Opened {
  lib: Pkcs11Lib;
  p11: Pkcs11;
  session: Buffer;
}

function open(config: TokenKeyConfig, rw: boolean): Opened {
  const lib = pkcs11Lib();
  const p11 = acquireModule(config.module);
  try {
    return { lib, p11, session: openUserSession(p11, config, rw) };
  } catch (e) {
    releaseModule(config.module);
    throw e;
  }
}

function find(o: Opened, cls: number, label: string): Buffer | null {
  const found = objectsLabelled(o.p11, o.session, cls, label);
  if (found.length > 1) throw new BaseError('config_invalid', `the token holds more than one key labelled "${label}"`);
  return found[0] ?? null;
}

/** Creates a key pair inside the token: the private half sensitive, never extractable, sign only. */
export function generateTokenKey(config: TokenKeyConfig, curve: 'secp256k1' | 'ed25519'): void {
  const o = open(config, true);
  try {
    if (find(o, o.lib.CKO_PRIVATE_KEY, config.keyLabel)) {
      throw new BaseError('conflict', `the token already holds a key labelled "${config.keyLabel}"`);
    }
    const label = { type: o.lib.CKA_LABEL, value: config.keyLabel };
    const params = { type: o.lib.CKA_EC_PARAMS, value: curve === 'secp256k1' ? SECP256K1_OID : ED25519_OID };
    const keyType = { type: o.lib.CKA_KEY_TYPE, value: curve === 'secp256k1' ? o.lib.CKK_EC : CKK_EC_EDWARDS };
    o.p11.C_GenerateKeyPair(
      o.session,
      { mechanism: curve === 'secp256k1' ? o.lib.CKM_EC_KEY_PAIR_GEN : CKM_EC_EDWARDS_KEY_PAIR_GEN },
      [{ type: o.lib.CKA_TOKEN, value: true }, { type: o.lib.CKA_VERIFY, value: true }, keyType, params, label],
      [
        { type: o.lib.CKA_TOKEN, value: true },
        { type: o.lib.CKA_PRIVATE, value: true },
        { type: o.lib.CKA_SENSITIVE, value: true },
        { type: o.lib.CKA_EXTRACTABLE, value: false },
        { type: o.lib.CKA_SIGN, value: true },
        keyType,
        label,
      ],
    );
  } finally {
    o.p11.C_CloseSession(o.session);
    releaseModule(config.module);
  }
}

/**
 * The token key pair labelled `keyLabel`, as a signer; one session, kept until `close`. Without
 * `curve`, the key's own type says it (CKK_EC: secp256k1, the only Weierstrass curve walletd makes;
 * CKK_EC_EDWARDS: ed25519).
 */
export function tokenSigner(config: TokenKeyConfig, wanted?: 'secp256k1' | 'ed25519'): SyncKeySigner {
  const o = open(config, false);
  try {
    const priv = find(o, o.lib.CKO_PRIVATE_KEY, config.keyLabel);
    const pub = find(o, o.lib.CKO_PUBLIC_KEY, config.keyLabel);
    if (!priv || !pub) throw new BaseError('config_invalid', `the token holds no key pair labelled "${config.keyLabel}"`);
    const [attr, type] = o.p11.C_GetAttributeValue(o.session, pub, [{ type: o.lib.CKA_EC_POINT }, { type: o.lib.CKA_KEY_TYPE }]);
    const point = unwrapOctetString(attr?.value as Buffer);
    const curve = wanted ?? (keyTypeOf(type?.value) === CKK_EC_EDWARDS ? 'ed25519' : 'secp256k1');
    let closed = false;
    return {
      curve,
      publicKey: () => Uint8Array.from(point),
      sign(data) {
        const mechanism = curve === 'secp256k1' ? o.lib.CKM_ECDSA : CKM_EDDSA;
        o.p11.C_SignInit(o.session, { mechanism }, priv);
        const sig = Buffer.from(o.p11.C_Sign(o.session, Buffer.from(data), Buffer.alloc(64)));
        return curve === 'secp256k1' ? lowS(sig) : Uint8Array.from(sig);
      },
      close() {
        if (closed) return;
        closed = true;
        o.p11.C_CloseSession(o.session);
        releaseModule(config.module);
      },
    };
  } catch (e) {
    o.p11.C_CloseSession(o.session);
    releaseModule(config.module);
    throw e;
  }
}

/** CKA_KEY_TYPE as pkcs11js returns it: a CK_ULONG in the machine's byte order. */
function keyTypeOf(value: unknown): number {
  if (typeof value === 'number') return value;
  const b = value as Buffer;
  return b.length >= 8 ? Number(b.readBigUInt64LE(0)) : b.readUInt32LE(0);
}

/** CKA_EC_POINT is DER: an OCTET STRING around the point (some tokens give the bare point). */
function unwrapOctetString(der: Buffer): Buffer {
  if (der[0] !== 0x04 || der.length < 2) return der;
  const len = der[1] as number;
  if (len < 0x80 && der.length === len + 2) return der.subarray(2);
  if (len === 0x81 && der.length === (der[2] as number) + 3) return der.subarray(3);
  return der;
}
