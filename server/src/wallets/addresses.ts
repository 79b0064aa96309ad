import { randomInt } from 'node:crypto';
import { BaseError, type Chain, type ChainPlugin, type Db, type MasterKey, type WalletdConfig, taggedAddress } from '@walletd/core';
import type { WalletRow } from '../http/scope';
import { addressRow } from './addressRow';
import {
  type AddressRow,
  type AddressServices,
  type AddressView,
  insertDeposit,
  lockForNewAddress,
  registerTokenAccounts,
  toView,
} from './addressWrites';
import { chainNotServed } from './chainNotServed';
import { refuseUnfollowed } from './followedNetwork';
import { withWalletSecret } from './wallets';
import { tokenHeldAddress } from '../keys/masterKey/tokenHeldKeys';
import { generateKmsHeldAddress } from './kmsHeldAddress';

// The view, the row and the writes an address takes live in addressWrites.ts (kmsHeldAddress.ts
// uses them too, and importing them from here made a circle); re-exported for the package's users.
export * from './addressWrites';

/**
 * What `POST /v1/wallets/:id/addresses` issues: a deposit address only where a loaded plugin serves
 * the chain (422 naming the package otherwise) and the configuration follows its network (409
 * otherwise), both checked before anything is written or an index taken.
 */
export async function issueDepositAddress(
  s: AddressServices & { config: WalletdConfig },
  wallet: WalletRow,
  label: string | null,
  keyHeldIn: 'wallet' | 'token' | 'kms' = 'wallet',
  kmsKeyId?: string,
): Promise<AddressView> {
  // The key id goes with a KMS-held address and nothing else: checked before anything is asked of a plugin.
  if ((keyHeldIn === 'kms') !== (kmsKeyId !== undefined)) {
    throw new BaseError('validation_failed', 'kmsKeyId is required with keyHeldIn "kms", and allowed only with it');
  }
  const plugin = s.plugins.forChain(wallet.chain);
  if (!plugin) throw chainNotServed(wallet.chain, 'addresses');
  refuseUnfollowed(s.config, wallet.chain, wallet.network);
  if (keyHeldIn === 'token') return generateTokenHeldAddress(s, plugin, wallet, label);
  if (keyHeldIn === 'kms') return generateKmsHeldAddress(s, plugin, wallet, label, kmsKeyId as string);
  return generateAddress(s, wallet, label);
}

/**
 * An address of the wallet whose key pair is generated inside the token (a treasury or hot address
 * that signs there, never derived from the mnemonic): it still takes the next index, so no
 * derived address ever lands on it, and signing it goes through the token (`withHeldKeys`).
 */
async function generateTokenHeldAddress(
  s: AddressServices & { config: WalletdConfig },
  plugin: ChainPlugin,
  wallet: WalletRow,
  label: string | null,
): Promise<AddressView> {
  if (!s.config.masterKey.pkcs11) {
    throw new BaseError('unprocessable', 'an address held in the token needs the master key in a PKCS#11 token (masterKey.pkcs11)');
  }
  if (plugin.chains.find((c) => c.chain === wallet.chain)?.addressing === 'account-tag') {
    throw new BaseError('unprocessable', `${wallet.chain} addresses are tags of the wallet's account: none is held in the token`);
  }
  const view = await s.db.transaction(async (trx) => {
    const locked = await lockForNewAddress(trx, wallet);
    const index = locked.next_address_index;
    const held = tokenHeldAddress(s.config, plugin, wallet, `walletd-address-${wallet.id}-${index}`);
    const row = { ...addressRow(wallet, held, index, 'deposit', label), key_label: held.key_label };
    return insertDeposit(trx, wallet, row, index);
  });
  await registerTokenAccounts(s, plugin, wallet, view.id);
  return view;
}

/**
 * The next deposit address of the wallet (whether its network is followed is the caller's check:
 * `issueDepositAddress`). Key-per-address chains: the next HD index, taken under
 * the wallet's row lock, so never reused. Account-tag chains (XRP): the wallet's account with a new
 * destination tag, no secret opened. Where the chain has token accounts, the new address's are
 * registered too (after the commit: the plugin may ask the node, never inside a transaction).
 */
export async function generateAddress(s: AddressServices, wallet: WalletRow, label: string | null): Promise<AddressView> {
  const plugin = s.plugins.forChain(wallet.chain);
  if (!plugin) throw chainNotServed(wallet.chain, 'addresses');
  const addressing = plugin.chains.find((c) => c.chain === wallet.chain)?.addressing ?? 'key-per-address';
  const view =
    addressing === 'account-tag'
      ? await generateTagAddress(s.db, s.masterKey, plugin, wallet, label)
      : await generateKeyAddress(s, plugin, wallet, label);
  await registerTokenAccounts(s, plugin, wallet, view.id);
  return view;
}

async function generateKeyAddress(s: AddressServices, plugin: ChainPlugin, wallet: WalletRow, label: string | null): Promise<AddressView> {
  return s.db.transaction(async (trx) => {
    const locked = await lockForNewAddress(trx, wallet);
    const derived = await withWalletSecret(s.masterKey, wallet.id, locked.secret_envelope, (secret) =>
      plugin.deriveAddress(wallet.chain as Chain, wallet.network, secret, locked.next_address_index),
    );
    return insertDeposit(trx, wallet, addressRow(wallet, derived, locked.next_address_index, 'deposit', label), locked.next_address_index);
  });
}

/** Tags are random (a sender cannot guess the next customer's) and unique per account; no secret is opened. */
async function generateTagAddress(
  db: Db,
  masterKey: MasterKey,
  plugin: ChainPlugin,
  wallet: WalletRow,
  label: string | null,
): Promise<AddressView> {
  const account = await ensureAccount(db, masterKey, plugin, wallet);
  return db.transaction(async (trx) => {
    const locked = await lockForNewAddress(trx, wallet);
    let tag = 0;
    do tag = randomInt(1, 2 ** 32 - 1);
    while (
      await trx('addresses')
        .where({ chain: wallet.chain, network: wallet.network, match_key: `${account.match_key}:${tag}` })
        .first('id')
    );
    const tagged = taggedAddress({ address: account.address, matchKey: account.match_key }, tag);
    const row = {
      ...addressRow(wallet, { ...tagged, path: account.derivation_path }, locked.next_address_index, 'deposit', label),
      destination_tag: tag,
    };
    return insertDeposit(trx, wallet, row, locked.next_address_index);
  });
}

/**
 * The account row of an account-tag wallet: derived when the wallet is created (`createWallet`);
 * a wallet created while the chain's plugin was not loaded gets it here, the one time a secret is
 * opened for it.
 */
export async function ensureAccount(
  db: Db,
  masterKey: MasterKey,
  plugin: ChainPlugin,
  wallet: { id: number; company_id: number; chain: string; network: string },
): Promise<{ id: number; address: string; match_key: string; derivation_path: string }> {
  const existing = await db('addresses')
    .where({ wallet_id: wallet.id, kind: 'account' })
    .first('id', 'address', 'match_key', 'derivation_path');
  if (existing) return existing;
  const { secret_envelope } = await db('wallets').where({ id: wallet.id }).first('secret_envelope');
  const derived = await withWalletSecret(masterKey, wallet.id, secret_envelope, (secret) =>
    plugin.deriveAddress(wallet.chain as Chain, wallet.network, secret, 0),
  );
  await db('addresses')
    .insert(addressRow(wallet, derived, 0, 'account', null))
    .onConflict()
    .ignore();
  return db('addresses').where({ wallet_id: wallet.id, kind: 'account' }).first('id', 'address', 'match_key', 'derivation_path');
}

export async function listAddresses(db: Db, walletId: number): Promise<AddressView[]> {
  // Deposit addresses and an account-tag wallet's account; change and token accounts are the
  // wallet's own and never handed out.
  return (
    (await db('addresses')
      .where({ wallet_id: walletId })
      .whereIn('kind', ['deposit', 'account'])
      .orderByRaw(`kind = 'account' desc, derivation_index`)) as AddressRow[]
  ).map(toView);
}
