import { createPublicKey } from 'node:crypto';
import type { KMSClient } from '@aws-sdk/client-kms';
import { BaseError, type KeySigner, onFirstUse } from '@walletd/plugin-kit';
import { secp256k1 } from '@noble/curves/secp256k1';

/** An asymmetric AWS KMS key that signs (`KeyUsage` SIGN_VERIFY): `ECC_SECG_P256K1` or `ECC_NIST_EDWARDS25519`. */
export interface AwsKmsKeyConfig {
  /** Key id, ARN or alias (`alias/walletd-treasury`). */
  keyId: string;
  region: string;
  /** Another endpoint than the region's (a VPC endpoint; a replaying server in tests). */
  endpoint?: string;
  /** Absent: the SDK's default chain (instance role, environment, profile). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

/**
 * The AWS SDK is required with the first KMS-held key, not when walletd loads: most deployments
 * hold no key in KMS, and every process (each CLI command, each role) paid for loading it at start
 * (server/src/platform/lazyModules.test.ts).
 */
const kms = onFirstUse(() => require('@aws-sdk/client-kms') as typeof import('@aws-sdk/client-kms'));

const SPECS = { ECC_SECG_P256K1: 'secp256k1', ECC_NIST_EDWARDS25519: 'ed25519' } as const;

/**
 * A `KeySigner` over AWS KMS: the public key is read once (`GetPublicKey`, DER SPKI), each
 * signature is one `Sign` call. secp256k1 signs the 32-byte digest (`MessageType: DIGEST`,
 * `ECDSA_SHA_256`: KMS does not hash it again) and answers DER, unpacked to `r‖s` with a low `s`
 * (the recovery id is the caller's, as for a token); Ed25519 signs the whole message
 * (`ED25519_SHA_512`, `RAW`). The private key never leaves KMS.
 */
export async function awsKmsSigner(config: AwsKmsKeyConfig, client = kmsClient(config)): Promise<KeySigner> {
  let curve: 'secp256k1' | 'ed25519';
  let publicKey: Buffer;
  try {
    const key = await call('GetPublicKey', config.keyId, () => client.send(new (kms().GetPublicKeyCommand)({ KeyId: config.keyId })));
    const spec = SPECS[key.KeySpec as keyof typeof SPECS];
    if (!spec || key.KeyUsage !== 'SIGN_VERIFY' || !key.PublicKey) {
      throw new BaseError(
        'config_invalid',
        `the KMS key ${config.keyId} is ${key.KeySpec} for ${key.KeyUsage}: walletd signs with ECC_SECG_P256K1 or ECC_NIST_EDWARDS25519 keys for SIGN_VERIFY`,
      );
    }
    curve = spec;
    publicKey = publicKeyOf(key.PublicKey, curve);
  } catch (e) {
    client.destroy();
    throw e;
  }
  return {
    curve,
    publicKey: () => Uint8Array.from(publicKey),
    async sign(data) {
      const out = await call('Sign', config.keyId, () =>
        client.send(
          new (kms().SignCommand)({
            KeyId: config.keyId,
            Message: data,
            ...(curve === 'secp256k1'
              ? { MessageType: 'DIGEST', SigningAlgorithm: 'ECDSA_SHA_256' }
              : { MessageType: 'RAW', SigningAlgorithm: 'ED25519_SHA_512' }),
          }),
        ),
      );
      if (!out.Signature) throw new BaseError('kms_error', `KMS answered no signature for ${config.keyId}`);
      return curve === 'secp256k1' ? rsOfDer(out.Signature) : Uint8Array.from(out.Signature);
    },
    // The SDK client's sockets (keep-alive to KMS) end with the signer.
    close: () => client.destroy(),
  };
}

function kmsClient(config: AwsKmsKeyConfig): KMSClient {
  return new (kms().KMSClient)({
    region: config.region,
    ...(config.endpoint ? { endpoint: config.endpoint } : {}),
    ...(config.credentials ? { credentials: config.credentials } : {}),
    maxAttempts: 3, // the SDK retries throttling (the per-account signing quota) with backoff
  });
}

/** A KMS failure as walletd's own error: the service's name and message, never the credentials. */
async function call<T>(operation: string, keyId: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    const name = (e as { name?: string }).name ?? 'Error';
    const throttled = name === 'ThrottlingException' || name === 'KMSInternalException' || name === 'DependencyTimeoutException';
    throw new BaseError(throttled ? 'unavailable' : 'kms_error', `KMS ${operation} for ${keyId} failed: ${name}: ${(e as Error).message}`, {
      cause: e,
      retriable: throttled,
    });
  }
}

/** The key from the SPKI KMS returns: secp256k1 as the uncompressed point, Ed25519 as its 32 bytes. */
function publicKeyOf(spki: Uint8Array, curve: 'secp256k1' | 'ed25519'): Buffer {
  const jwk = createPublicKey({ key: Buffer.from(spki), format: 'der', type: 'spki' }).export({ format: 'jwk' });
  const x = Buffer.from(jwk.x as string, 'base64url');
  if (curve === 'ed25519') {
    if (jwk.crv !== 'Ed25519') throw new BaseError('config_invalid', `KMS returned a ${jwk.crv} key for an Ed25519 key spec`);
    return x;
  }
  if (jwk.crv !== 'secp256k1') throw new BaseError('config_invalid', `KMS returned a ${jwk.crv} key for ECC_SECG_P256K1`);
  return Buffer.concat([Buffer.from([4]), x, Buffer.from(jwk.y as string, 'base64url')]);
}

/**
 * ECDSA-Sig-Value (RFC 3279) as `r‖s`, 32 bytes each, `s` normalised to the low half (KMS returns
 * either): @noble/curves' strict DER parser, not a hand-written one.
 */
export function rsOfDer(der: Uint8Array): Uint8Array {
  try {
    return secp256k1.Signature.fromDER(der).normalizeS().toCompactRawBytes();
  } catch (e) {
    throw new BaseError('kms_error', 'KMS answered a signature that is not DER ECDSA', { cause: e });
  }
}
