import type { DetectedTransfer } from '@walletd/core';
import type { Knex } from 'knex';
import type { AddressRow, ChainKey } from '../../types';

/**
 * The company addresses the transfers pay, by match key (the exact check after the worker's set).
 * A token account (contract v2) stands for its owner: the row returned is the owner's, with the one
 * asset the token account may be credited in (`onlyAsset`).
 */
export async function addressesFor(trx: Knex.Transaction, k: ChainKey, transfers: DetectedTransfer[]): Promise<Map<string, AddressRow>> {
  const keys = [...new Set(transfers.map((t) => t.toKey))];
  const rows = (await trx('addresses as a')
    .leftJoin('addresses as o', 'o.id', 'a.owner_address_id')
    .where({ 'a.chain': k.chain, 'a.network': k.network })
    .whereIn('a.match_key', keys)
    .select(
      trx.raw('coalesce(o.id, a.id) as id'),
      'a.match_key',
      trx.raw('coalesce(o.address, a.address) as address'),
      'a.wallet_id',
      'a.company_id',
      trx.raw(`case when a.kind = 'token_account' then a.asset_key end as only_asset`),
    )) as AddressRow[];
  return new Map(rows.map((a) => [a.match_key, a]));
}
