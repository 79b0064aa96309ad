import {
  awsKmsSigner,
  BaseError,
  type Chain,
  type ChainPlugin,
  type DerivedAddress,
  type KeySigner,
  type Metrics,
  type PluginRegistry,
  type WalletdConfig,
} from '@walletd/core';

/** What a chain's curve needs as a KMS key spec, said in refusals so the operator knows which key to make. */
const KEY_SPEC = { secp256k1: 'ECC_SECG_P256K1', ed25519: 'ECC_NIST_EDWARDS25519' } as const;

/**
 * The KMS key `keyId` opened with walletd's `signers.awsKms` (one `GetPublicKey`); credentials come
 * from the SDK's default chain, never from walletd's config. A key walletd cannot sign with (another
 * spec or usage) is the caller's choice of key: 422 naming it. KMS failures stay walletd's errors
 * naming the operation, the key and KMS's exception (`awsKmsSigner`), never a credential.
 */
export async function openKmsKey(config: WalletdConfig, keyId: string): Promise<KeySigner> {
  const settings = config.signers.awsKms;
  if (!settings) {
    throw new BaseError('unprocessable', 'a key held in AWS KMS needs signers.awsKms in the config (docs/operate/keys-and-hsms.md)');
  }
  try {
    return await awsKmsSigner({ keyId, region: settings.region, ...(settings.endpoint ? { endpoint: settings.endpoint } : {}) });
  } catch (e) {
    if (e instanceof BaseError && e.code === 'config_invalid') throw new BaseError('unprocessable', e.message);
    throw e;
  }
}

/**
 * The address of the KMS key `keyId` on the wallet's chain (its plugin's `addressOfKey` of the key
 * KMS returns), once the key's curve is the one the chain signs with (`keyHeldInToken`); `path`
 * says where the key is (`awskms:<keyId>`). Only the key id is stored.
 */
export async function kmsHeldAddress(
  config: WalletdConfig,
  plugin: ChainPlugin,
  wallet: { chain: string; network: string },
  keyId: string,
): Promise<DerivedAddress & { kms_key_id: string }> {
  const curve = plugin.chains.find((c) => c.chain === wallet.chain)?.keyHeldInToken;
  if (!curve || !plugin.addressOfKey) {
    throw new BaseError(
      'unprocessable',
      `a key held in KMS is not built for ${wallet.chain} (its plugin names no address for an outside key); its keys derive from the wallet`,
    );
  }
  const signer = await openKmsKey(config, keyId).catch((e) => {
    // A key KMS will not show (not found, disabled, access denied) is the caller's choice of key:
    // 422 with what KMS said; a throttle stays retriable (503).
    if (e instanceof BaseError && !e.retriable) throw new BaseError('unprocessable', e.message);
    throw e;
  });
  try {
    if (signer.curve !== curve) {
      throw new BaseError(
        'unprocessable',
        `the KMS key ${keyId} is ${KEY_SPEC[signer.curve]} (${signer.curve}); ${wallet.chain} signs with ${curve}: use a ${KEY_SPEC[curve]} key`,
      );
    }
    return { ...plugin.addressOfKey(wallet.chain as Chain, wallet.network, signer), path: `awskms:${keyId}`, kms_key_id: keyId };
  } finally {
    signer.close();
  }
}

/**
 * The signer of a KMS-held source address, for one signing: opened afresh (the key id may be an
 * alias), refused unless it is still the address's key (an alias moved to another key would sign
 * for an address that holds nothing, or worse), every signature counted.
 */
export async function kmsSignerFor(
  config: WalletdConfig,
  plugins: PluginRegistry,
  metrics: Metrics | undefined,
  row: { kms_key_id: string; address: string; chain: string; network: string },
): Promise<KeySigner> {
  const plugin = plugins.forChain(row.chain);
  const signer = await openKmsKey(config, row.kms_key_id);
  const now = plugin?.addressOfKey?.(row.chain as Chain, row.network, signer).address;
  if (now !== row.address) {
    signer.close();
    throw new BaseError(
      'conflict',
      `the KMS key ${row.kms_key_id} is no longer the key of ${row.address} (it gives ${now ?? 'no address'}): nothing was signed`,
    );
  }
  return {
    curve: signer.curve,
    publicKey: () => signer.publicKey(),
    async sign(data) {
      const sig = await signer.sign(data);
      metrics?.kmsSignatures.inc({ backend: 'aws_kms', curve: signer.curve });
      return sig;
    },
    close: () => signer.close(),
  };
}
