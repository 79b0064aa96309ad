import type { AddressBookView, Db } from '@walletd/core';
import type { Knex } from 'knex';

/**
 * The live entries a withdrawal from `walletId` on chain/network may pay (the wallet's own and the
 * company-wide ones), split by the database's clock into those that can receive and those still
 * cooling off: the policy engine compares destinations with their match forms.
 */
export async function addressBookView(
  db: Db | Knex.Transaction,
  companyId: number,
  walletId: number,
  chain: string,
  network: string,
): Promise<AddressBookView> {
  const rows = (await db('address_book_entries')
    .where({ company_id: companyId, chain, network })
    .whereNull('removed_at')
    .andWhere((q) => q.whereNull('wallet_id').orWhere('wallet_id', walletId))
    .select('match_key', 'usable_from', db.raw('usable_from <= now() as usable'))) as {
    match_key: string;
    usable_from: Date;
    usable: boolean;
  }[];
  return {
    usable: rows.filter((r) => r.usable).map((r) => r.match_key.toLowerCase()),
    cooling: rows.filter((r) => !r.usable).map((r) => ({ matchKey: r.match_key.toLowerCase(), usableFrom: r.usable_from.toISOString() })),
  };
}
