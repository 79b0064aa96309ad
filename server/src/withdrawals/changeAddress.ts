import type { Chain, ChainPlugin, Db, MasterKey } from '@walletd/core';
import { addressRow } from '../wallets/addressRow';
import { withWalletSecret } from '../wallets/wallets';

/**
 * The wallet's change address on chains with change outputs (the plugin has
 * `deriveChangeAddress`): index 0 of the internal branch, created the first time a withdrawal
 * needs it and then reused, so standard wallets restoring from the mnemonic find it within their
 * gap limit. It is stored with kind `change`: the indexer watches it as the wallet's own, the
 * on-chain balance counts it, the API never hands it out. Reuse trades some privacy for that; a
 * rotating change branch is possible later without changing the rule that matters (an output to
 * the wallet inside its own withdrawal is never a deposit).
 */
export async function ensureChangeAddress(
  db: Db,
  masterKey: MasterKey,
  plugin: ChainPlugin,
  wallet: { id: number; company_id: number; chain: string; network: string },
): Promise<string | undefined> {
  if (!plugin.deriveChangeAddress) return undefined;
  const existing = await changeAddressOf(db, wallet.id);
  if (existing) return existing;
  const { secret_envelope } = await db('wallets').where({ id: wallet.id }).first('secret_envelope');
  const derive = plugin.deriveChangeAddress.bind(plugin);
  const derived = await withWalletSecret(masterKey, wallet.id, secret_envelope, (secret) =>
    derive(wallet.chain as Chain, wallet.network, secret, 0),
  );
  await db('addresses')
    .insert(addressRow(wallet, derived, 0, 'change', 'change'))
    .onConflict()
    .ignore();
  return (await changeAddressOf(db, wallet.id)) as string;
}

/** The stored change address, if the wallet has one (no secret opened). */
export async function changeAddressOf(db: Db, walletId: number): Promise<string | undefined> {
  const row = await db('addresses').where({ wallet_id: walletId, kind: 'change' }).orderBy('derivation_index').first('address');
  return row?.address;
}
