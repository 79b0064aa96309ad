import {
  createCipheriv,
  createDecipheriv,
  createPrivateKey,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  randomBytes,
  type KeyObject,
} from 'node:crypto';
import { BaseError } from '@walletd/plugin-kit';

/**
 * Seals a wallet secret to the company's X25519 public key (ECIES: ephemeral X25519, HKDF-SHA256,
 * AES-256-GCM). The server holds no private key for it, so what `GET /wallets/:id/secret` returns
 * can only be opened by the company with `walletd secret open`.
 *
 * Format: "wdseal1." + base64url( ephemeralPublicKey(32) | iv(12) | tag(16) | ciphertext )
 * Key     = HKDF-SHA256(ikm = X25519(eph, recipient), salt = ephPub | recipientPub, info = "walletd-seal-v1", 32)
 * AAD     = the context string (e.g. "wallet:42"), so a sealed secret names the wallet it belongs to.
 */
const PREFIX = 'wdseal1.';

const PRIVATE_PEM = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/;
const PUBLIC_PEM = /-----BEGIN [A-Z0-9 ]*PUBLIC KEY-----/;

export function parsePublicKey(pem: string): KeyObject {
  // createPublicKey also takes a private key (it derives the public half), so a private key would
  // be accepted silently: refuse it, the company's private key must never leave its hands.
  if (PRIVATE_PEM.test(pem)) {
    throw new BaseError(
      'bad_request',
      'this is a PRIVATE key, not a public key: register the public key (the file `walletd secret keygen` wrote with --public-key) and keep the private key offline; it was not stored',
    );
  }
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch {
    throw new BaseError('bad_request', 'public key is not a PEM-encoded key');
  }
  if (key.asymmetricKeyType !== 'x25519') {
    throw new BaseError('bad_request', `public key must be X25519, got ${key.asymmetricKeyType ?? 'unknown'}`);
  }
  return key;
}

const rawPublic = (key: KeyObject): Buffer => {
  const jwk = key.export({ format: 'jwk' });
  return Buffer.from(jwk.x as string, 'base64url');
};

function deriveKey(shared: Buffer, ephPub: Buffer, recipientPub: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', shared, Buffer.concat([ephPub, recipientPub]), 'walletd-seal-v1', 32));
}

export function sealTo(publicKeyPem: string, plaintext: Buffer, context: string): string {
  const recipient = parsePublicKey(publicKeyPem);
  const eph = generateKeyPairSync('x25519');
  const ephPub = rawPublic(eph.publicKey);
  const key = deriveKey(diffieHellman({ privateKey: eph.privateKey, publicKey: recipient }), ephPub, rawPublic(recipient));
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context));
  const ct = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return PREFIX + Buffer.concat([ephPub, iv, cipher.getAuthTag(), ct]).toString('base64url');
}

export function openSealed(privateKeyPem: string, sealed: string, context: string): Buffer {
  if (!sealed.startsWith(PREFIX)) throw new BaseError('bad_request', 'not a walletd sealed secret (expected the wdseal1. prefix)');
  const box = Buffer.from(sealed.slice(PREFIX.length), 'base64url');
  if (box.length < 60) throw new BaseError('bad_request', 'sealed secret is truncated');
  const priv = parseSealingPrivateKey(privateKeyPem);
  const pub = createPublicKey(priv);
  const ephPub = box.subarray(0, 32);
  let shared: Buffer;
  try {
    const ephKey = createPublicKey({ key: { kty: 'OKP', crv: 'X25519', x: ephPub.toString('base64url') }, format: 'jwk' });
    shared = diffieHellman({ privateKey: priv, publicKey: ephKey });
  } catch {
    throw new BaseError('bad_request', 'sealed secret is damaged (its ephemeral key is not a usable X25519 key)');
  }
  const decipher = createDecipheriv('aes-256-gcm', deriveKey(shared, ephPub, rawPublic(pub)), box.subarray(32, 44));
  decipher.setAAD(Buffer.from(context));
  decipher.setAuthTag(box.subarray(44, 60));
  try {
    return Buffer.concat([decipher.update(box.subarray(60)), decipher.final()]);
  } catch {
    // GCM cannot tell a wrong key from a wrong context or tampering; name the likely causes.
    throw new BaseError(
      'bad_request',
      `this private key does not open the sealed secret of ${context}: it was sealed to another public key (the one registered when it was exported), for another wallet, or it was altered`,
    );
  }
}

/** The company's X25519 private key, with what is wrong with it in words. */
export function parseSealingPrivateKey(pem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    if (PUBLIC_PEM.test(pem)) {
      throw new BaseError(
        'bad_request',
        'this is a public key: opening a sealed secret needs the private key (the file `walletd secret keygen` wrote with --private-key)',
      );
    }
    const why = PRIVATE_PEM.test(pem) ? 'it is damaged or protected by a passphrase' : 'it is not a PEM-encoded key';
    throw new BaseError('bad_request', `the private key cannot be read: ${why}`);
  }
  if (key.asymmetricKeyType !== 'x25519') {
    throw new BaseError(
      'bad_request',
      `private key must be X25519 (from walletd secret keygen), got ${key.asymmetricKeyType ?? 'unknown'}`,
    );
  }
  return key;
}

/** A new X25519 key pair in PEM, for `walletd secret keygen`. */
export function generateSealingKeyPair(): { publicKeyPem: string; privateKeyPem: string } {
  const { publicKey, privateKey } = generateKeyPairSync('x25519');
  return {
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}
