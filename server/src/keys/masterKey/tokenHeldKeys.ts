import {
  BaseError,
  type Chain,
  type ChainPlugin,
  type Db,
  type DerivedAddress,
  generateTokenKey,
  type KeySigner,
  type MasterKey,
  type Metrics,
  type PluginRegistry,
  type TokenKeyConfig,
  tokenConfig,
  tokenSigner,
  type WalletdConfig,
  type WalletSecret,
} from '@walletd/core';
import { withWalletSecret } from '../../wallets/wallets';
import { kmsSignerFor } from '../kmsHeldKeys';

/** The token of `masterKey.pkcs11`, with another key label: where token-held keys live. */
export function tokenKeyConfig(config: WalletdConfig, keyLabel: string): TokenKeyConfig {
  const settings = config.masterKey.pkcs11;
  if (!settings) {
    throw new BaseError('config_invalid', 'a key held in the token needs masterKey.pkcs11 (docs/operate/keys-and-hsms.md)');
  }
  return { ...tokenConfig(settings, process.env, 'masterKey.pkcs11'), keyLabel };
}

/**
 * The key pair (on `curve`) in the token labelled `keyLabel` (the label names the wallet and the
 * address's role), made on first use. One already there under that label is the one: a call that
 * made it and crashed before recording the address.
 */
export function newTokenKey(
  config: WalletdConfig,
  keyLabel: string,
  curve: 'secp256k1' | 'ed25519',
): { keyLabel: string; signer: KeySigner } {
  const at = tokenKeyConfig(config, keyLabel);
  try {
    generateTokenKey(at, curve);
  } catch (e) {
    if (!(e instanceof BaseError && e.code === 'conflict')) throw e;
  }
  return { keyLabel, signer: tokenSigner(at, curve) };
}

/**
 * An address of `wallet` whose key pair is generated in the token (label `keyLabel`): on chains
 * whose definition says which curve a token key needs (`keyHeldInToken`: EVM secp256k1, Solana
 * ed25519), its address from the token's public key; elsewhere 422 naming the chain.
 */
export function tokenHeldAddress(
  config: WalletdConfig,
  plugin: ChainPlugin,
  wallet: { chain: string; network: string },
  keyLabel: string,
): DerivedAddress & { key_label: string } {
  const curve = plugin.chains.find((c) => c.chain === wallet.chain)?.keyHeldInToken;
  if (!curve || !plugin.addressOfKey) {
    throw new BaseError(
      'unprocessable',
      `a key held in the token is not built for ${wallet.chain} (its plugin names no address for a token key); its keys derive from the wallet`,
    );
  }
  const { signer } = newTokenKey(config, keyLabel, curve);
  try {
    return { ...plugin.addressOfKey(wallet.chain as Chain, wallet.network, signer), path: `pkcs11:${keyLabel}`, key_label: keyLabel };
  } finally {
    signer.close();
  }
}

/** Where the keys that signed were held (said in the audit): the token, a cloud KMS, or both. */
export type HeldIn = 'token' | 'kms' | Array<'token' | 'kms'> | undefined;

/**
 * `use` with the wallet secret, and for each of `indexes` whose address is held in the token or in
 * a KMS its signer (`signerAt`): every such signature is counted; the signers end with the call.
 * Returns where the held keys were (said in the audit), undefined when every key was derived.
 */
export async function withHeldKeys<T>(
  common: { db: Db; config: WalletdConfig; metrics?: Metrics; plugins: PluginRegistry },
  walletId: number,
  indexes: number[],
  secret: WalletSecret,
  use: (secret: WalletSecret) => Promise<T>,
): Promise<{ result: T; heldIn: HeldIn }> {
  const { db, config, metrics } = common;
  const rows = (await db('addresses')
    .where({ wallet_id: walletId })
    .whereIn('derivation_index', indexes)
    .where((q) => q.whereNotNull('key_label').orWhereNotNull('kms_key_id'))
    .select('derivation_index', 'key_label', 'kms_key_id', 'address', 'chain', 'network')) as HeldRow[];
  if (rows.length === 0) return { result: await use(secret), heldIn: undefined };
  const signers = new Map<number, KeySigner>();
  const kinds = new Set<'token' | 'kms'>();
  try {
    for (const r of rows) {
      if (r.kms_key_id) {
        signers.set(r.derivation_index, await kmsSignerFor(config, common.plugins, metrics, { ...r, kms_key_id: r.kms_key_id }));
        kinds.add('kms');
        continue;
      }
      // The curve is the key's own (CKA_KEY_TYPE): EVM stations are secp256k1, Solana's ed25519.
      const signer = tokenSigner(tokenKeyConfig(config, r.key_label as string));
      kinds.add('token');
      signers.set(r.derivation_index, {
        curve: signer.curve,
        publicKey: () => signer.publicKey(),
        sign: (data) => {
          const sig = signer.sign(data);
          metrics?.tokenSignatures.inc({ curve: signer.curve });
          return sig;
        },
        close: () => signer.close(),
      });
    }
    const held: WalletSecret = {
      seed: () => secret.seed(),
      entropy: () => secret.entropy(),
      mnemonic: () => secret.mnemonic(),
      signerAt: (index) => signers.get(index),
    };
    const heldIn = [...kinds];
    return { result: await use(held), heldIn: heldIn.length === 1 ? heldIn[0] : heldIn };
  } finally {
    for (const s of signers.values()) s.close();
  }
}

interface HeldRow {
  derivation_index: number;
  key_label: string | null;
  kms_key_id: string | null;
  address: string;
  chain: string;
  network: string;
}

/**
 * What signing a withdrawal needs: the wallet's secret opened from its envelope, with the
 * signers of its sources held in the token or a KMS (`withHeldKeys`). Signing and replacing both go through it.
 */
export function withSigningKeys<T>(
  common: { db: Db; config: WalletdConfig; metrics?: Metrics; masterKey: MasterKey; plugins: PluginRegistry },
  walletId: number,
  envelope: unknown,
  indexes: number[],
  use: (secret: WalletSecret) => Promise<T>,
): Promise<{ result: T; heldIn: HeldIn }> {
  return withWalletSecret(common.masterKey, walletId, envelope, (secret) => withHeldKeys(common, walletId, indexes, secret, use));
}
