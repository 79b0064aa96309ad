import { BaseError } from '@walletd/plugin-kit';
import type { Db } from '../db';
import type { Chain } from '@walletd/plugin-kit';
import type { ChainPlugin, ChainReader, TokenDefinition } from '@walletd/plugin-kit';

interface OwnerRow {
  id: number;
  company_id: number;
  wallet_id: number;
  address: string;
  match_key: string;
  derivation_index: number;
  derivation_path: string;
}

/**
 * Registers the token accounts (contract v2 `tokenAccounts`) of the chain's deposit addresses that
 * lack one for an allow-listed token: all of them (the indexer at start, for tokens allow-listed
 * since), those after an id (the indexer, for new addresses), or the given owners (a newly
 * generated address). Rows are `token_account` addresses tied
 * to their owner and asset; inserting twice is a no-op. Returns how many were added.
 */
export async function ensureTokenAccounts(
  db: Db,
  plugin: ChainPlugin,
  reader: ChainReader,
  chain: Chain,
  network: string,
  tokens: readonly TokenDefinition[],
  which: { ids?: readonly number[]; afterId?: number } = {},
): Promise<number> {
  if (!plugin.tokenAccounts || tokens.length === 0) return 0;
  const keys = tokens.map((t) => t.key);
  const q = db('addresses as a')
    .where({ 'a.chain': chain, 'a.network': network, 'a.kind': 'deposit' })
    .whereNull('a.destination_tag')
    .whereRaw(
      `(select count(*) from addresses t where t.owner_address_id = a.id and t.kind = 'token_account' and t.asset_key = any(?)) < ?`,
      [keys, keys.length],
    )
    .orderBy('a.id')
    .select('a.id', 'a.company_id', 'a.wallet_id', 'a.address', 'a.match_key', 'a.derivation_index', 'a.derivation_path');
  if (which.ids) q.whereIn('a.id', [...which.ids]);
  if (which.afterId !== undefined) q.where('a.id', '>', which.afterId);
  const rows = (await q) as OwnerRow[];
  const known = new Set(keys);
  let added = 0;
  for (const o of rows) {
    const accounts = await plugin.tokenAccounts(
      chain,
      network,
      { address: o.address, matchKey: o.match_key, path: o.derivation_path },
      tokens,
      reader,
    );
    for (const a of accounts) {
      if (!known.has(a.assetKey))
        throw new BaseError('internal', `plugin ${plugin.name} named a token account for ${a.assetKey}, not an allow-listed token`);
    }
    if (accounts.length === 0) continue;
    const inserted = await db('addresses')
      .insert(
        accounts.map((a) => ({
          company_id: o.company_id,
          wallet_id: o.wallet_id,
          chain,
          network,
          address: a.address,
          match_key: a.matchKey,
          derivation_index: o.derivation_index,
          derivation_path: o.derivation_path,
          kind: 'token_account',
          owner_address_id: o.id,
          asset_key: a.assetKey,
        })),
      )
      .onConflict()
      .ignore()
      .returning('id');
    added += inserted.length;
  }
  return added;
}
