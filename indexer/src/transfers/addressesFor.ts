import type { DetectedTransfer } from '@walletd/core';
import type { Knex } from 'knex';
import type { AddressRow, ChainKey } from './types';

/** The company addresses the transfers pay, by match key (the exact check after the worker's set). */
export async function addressesFor(trx: Knex.Transaction, k: ChainKey, transfers: DetectedTransfer[]): Promise<Map<string, AddressRow>> {
  const keys = [...new Set(transfers.map((t) => t.toKey))];
  const rows = (await trx('addresses as a')
    .join('wallets as w', 'w.id', 'a.wallet_id')
    .where({ 'a.chain': k.chain, 'a.network': k.network })
    .whereIn('a.match_key', keys)
    .select('a.id', 'a.match_key', 'a.address', 'a.wallet_id', 'a.company_id')) as AddressRow[];
  return new Map(rows.map((a) => [a.match_key, a]));
}
