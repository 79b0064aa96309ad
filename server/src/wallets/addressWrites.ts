import {
  BaseError,
  type Chain,
  type Db,
  type ChainPlugin,
  type Logger,
  type MasterKey,
  PLAN_LIMITS,
  type PluginRegistry,
  type WalletdConfig,
  chainAssets,
  ensureTokenAccounts,
} from '@walletd/core';
import type { Knex } from 'knex';
import type { WalletRow } from '../http/scope';

/**
 * An address as the API shows it, its row, and the steps every way of issuing one shares (the
 * wallet's next index under its lock, the insert, the token accounts): addresses.ts (derived and
 * token-held keys) and kmsHeldAddress.ts (KMS keys) both build on them.
 */
export interface AddressView {
  id: number;
  walletId: number;
  chain: string;
  network: string;
  kind: 'deposit' | 'account';
  address: string;
  destinationTag: number | null;
  index: number;
  path: string;
  label: string | null;
  createdAt: string;
  /** Present on an address whose key is held in the PKCS#11 token (issue 45 §3) or AWS KMS (§4). */
  keyHeldIn?: 'token' | 'kms';
}

export interface AddressRow {
  id: number;
  wallet_id: number;
  chain: string;
  network: string;
  kind: 'deposit' | 'account';
  address: string;
  destination_tag: string | null;
  derivation_index: number;
  derivation_path: string;
  label: string | null;
  created_at: Date;
  key_label?: string | null;
  kms_key_id?: string | null;
}

/**
 * Where an address's key is held, as the API and the console say it: a key label is set only on a
 * key pair generated in the token (migration 042), a KMS key id only on a key in AWS KMS (046).
 */
export const keyHeldIn = (r: { key_label?: string | null; kms_key_id?: string | null }): { keyHeldIn?: 'token' | 'kms' } =>
  r.key_label ? { keyHeldIn: 'token' } : r.kms_key_id ? { keyHeldIn: 'kms' } : {};

export const toView = (r: AddressRow): AddressView => ({
  id: r.id,
  walletId: r.wallet_id,
  chain: r.chain,
  network: r.network,
  kind: r.kind,
  address: r.address,
  destinationTag: r.destination_tag === null ? null : Number(r.destination_tag),
  index: r.derivation_index,
  path: r.derivation_path,
  label: r.label,
  createdAt: r.created_at.toISOString(),
  ...keyHeldIn(r),
});

export interface AddressServices {
  db: Db;
  masterKey: MasterKey;
  plugins: PluginRegistry;
  /** Without it no token account is registered here; the indexer registers them before its next block. */
  config?: WalletdConfig;
  logger?: Logger;
}

export async function lockForNewAddress(
  trx: Knex.Transaction,
  wallet: WalletRow,
): Promise<{ next_address_index: number; secret_envelope: unknown }> {
  const locked = await trx('wallets').where({ id: wallet.id }).forUpdate().first('next_address_index', 'secret_envelope');
  const company = await trx('companies').where({ id: wallet.company_id }).first('plan');
  const cap = company.plan === 'free' ? PLAN_LIMITS.free.maxAddressesPerWallet : null;
  if (cap !== null && locked.next_address_index >= cap)
    throw new BaseError('plan_cap_reached', `the free plan allows at most ${cap} addresses per wallet`);
  return locked;
}

export async function insertDeposit(
  trx: Knex.Transaction,
  wallet: WalletRow,
  row: Record<string, unknown>,
  index: number,
): Promise<AddressView> {
  const [inserted] = await trx('addresses').insert(row).returning('*');
  await trx('wallets')
    .where({ id: wallet.id })
    .update({ next_address_index: index + 1 });
  return toView(inserted as AddressRow);
}

/**
 * Best effort here: the address is committed and valid; if the node cannot name a token account
 * now, the indexer registers it before it reads the next block (it checks every new address).
 */
export async function registerTokenAccounts(s: AddressServices, plugin: ChainPlugin, wallet: WalletRow, addressId: number): Promise<void> {
  if (!plugin.tokenAccounts || !s.config) return;
  const settings = s.config.chains.find((c) => c.chain === wallet.chain && c.network === wallet.network);
  if (!settings) return;
  try {
    const { tokens } = chainAssets(plugin, settings);
    await ensureTokenAccounts(s.db, plugin, s.plugins.readerFor(settings), wallet.chain as Chain, wallet.network, tokens, {
      ids: [addressId],
    });
  } catch (err) {
    s.logger?.warn({ err, walletId: wallet.id, addressId }, 'token accounts not registered yet; the indexer will retry');
  }
}
