import { BaseError, type Chain, type Db, type DerivedAddress, type MasterKey, PLAN_LIMITS, type PluginRegistry } from '@walletd/core';
import type { WalletRow } from '../http/scope';
import { withWalletSecret } from './wallets';

export interface AddressView {
  id: number;
  walletId: number;
  chain: string;
  network: string;
  address: string;
  index: number;
  path: string;
  label: string | null;
  createdAt: string;
}

interface AddressRow {
  id: number;
  wallet_id: number;
  chain: string;
  network: string;
  address: string;
  derivation_index: number;
  derivation_path: string;
  label: string | null;
  created_at: Date;
}

const toView = (r: AddressRow): AddressView => ({
  id: r.id,
  walletId: r.wallet_id,
  chain: r.chain,
  network: r.network,
  address: r.address,
  index: r.derivation_index,
  path: r.derivation_path,
  label: r.label,
  createdAt: r.created_at.toISOString(),
});

type WalletKeys = { id: number; company_id: number; chain: string; network: string };

/** An `addresses` row for a derived address of the wallet: a deposit address, or its change address (migration 009). */
export function addressRow(
  wallet: WalletKeys,
  derived: DerivedAddress,
  index: number,
  kind: 'deposit' | 'change',
  label: string | null,
): Record<string, unknown> {
  return {
    company_id: wallet.company_id,
    wallet_id: wallet.id,
    chain: wallet.chain,
    network: wallet.network,
    address: derived.address,
    match_key: derived.matchKey,
    derivation_index: index,
    derivation_path: derived.path,
    kind,
    label,
  };
}

/** The next HD address of the wallet; indexes are taken under a row lock, so never reused. */
export async function generateAddress(
  db: Db,
  masterKey: MasterKey,
  plugins: PluginRegistry,
  wallet: WalletRow,
  label: string | null,
): Promise<AddressView> {
  const plugin = plugins.forChain(wallet.chain);
  if (!plugin) throw new BaseError('unprocessable', `addresses on ${wallet.chain} are not supported by this build yet`);
  return db.transaction(async (trx) => {
    const locked = await trx('wallets').where({ id: wallet.id }).forUpdate().first('next_address_index', 'secret_envelope');
    const company = await trx('companies').where({ id: wallet.company_id }).first('plan');
    const cap = company.plan === 'free' ? PLAN_LIMITS.free.maxAddressesPerWallet : null;
    if (cap !== null && locked.next_address_index >= cap)
      throw new BaseError('plan_cap_reached', `the free plan allows at most ${cap} addresses per wallet`);
    const derived = await withWalletSecret(masterKey, wallet.id, locked.secret_envelope, (secret) =>
      plugin.deriveAddress(wallet.chain as Chain, wallet.network, secret, locked.next_address_index),
    );
    const [row] = await trx('addresses')
      .insert(addressRow(wallet, derived, locked.next_address_index, 'deposit', label))
      .returning('*');
    await trx('wallets')
      .where({ id: wallet.id })
      .update({ next_address_index: locked.next_address_index + 1 });
    return toView(row as AddressRow);
  });
}

export async function listAddresses(db: Db, walletId: number): Promise<AddressView[]> {
  // Deposit addresses only: a change address is the wallet's own and never handed out.
  return ((await db('addresses').where({ wallet_id: walletId, kind: 'deposit' }).orderBy('derivation_index')) as AddressRow[]).map(toView);
}
