import type { Db } from '@walletd/core';
import type { Scope } from './scopeFigures';

export interface ScopePage {
  /** Each scope with the cursor that follows it (its address id, or its wallet id when pooled). */
  scopes: { scope: Scope; next: number }[];
  /** Nothing follows the page: the pass over the chain ends with it. */
  last: boolean;
}

/** Addresses that hold funds: deposit, change, account and gas station rows; a tagged address is its account's. */
const HOLDING_KINDS = ['deposit', 'change', 'account', 'gas_station'];

/**
 * The next scopes after `cursor`, about `limit` addresses: on account chains one scope per address
 * (by address id); on pooled chains whole wallets (by wallet id, at least one, however many
 * addresses it has: its total is only meaningful whole). Deleted wallets are skipped; with
 * `companyId`, only that company's wallets are paged ("check now").
 */
export async function nextScopes(
  db: Db,
  key: { chain: string; network: string },
  pooled: boolean,
  cursor: number,
  limit: number,
  companyId?: number,
): Promise<ScopePage> {
  const ofCompany = <Q extends { where(c: string, v: number): Q }>(q: Q, column: string): Q =>
    companyId === undefined ? q : q.where(column, companyId);
  const holding = () =>
    ofCompany(db('addresses as a').join('wallets as w', 'w.id', 'a.wallet_id'), 'w.company_id')
      .where({ 'w.chain': key.chain, 'w.network': key.network })
      .whereNull('w.deleted_at')
      .whereIn('a.kind', HOLDING_KINDS)
      .whereNull('a.destination_tag');
  if (!pooled) {
    const rows = (await holding()
      .where('a.id', '>', cursor)
      .orderBy('a.id')
      .limit(limit + 1)
      .select('a.id', 'a.wallet_id', 'w.company_id', 'a.address')) as {
      id: number;
      wallet_id: number;
      company_id: number;
      address: string;
    }[];
    return {
      scopes: rows.slice(0, limit).map((r) => ({
        scope: { walletId: r.wallet_id, companyId: r.company_id, address: r.address, addresses: [r.address] },
        next: r.id,
      })),
      last: rows.length <= limit,
    };
  }
  const scopes: ScopePage['scopes'] = [];
  let after = cursor;
  let read = 0;
  while (read < limit) {
    const wallet = (await ofCompany(db('wallets'), 'company_id')
      .where({ chain: key.chain, network: key.network })
      .whereNull('deleted_at')
      .where('id', '>', after)
      .orderBy('id')
      .first('id', 'company_id')) as { id: number; company_id: number } | undefined;
    if (!wallet) return { scopes, last: true };
    const addresses = await poolAddresses(db, wallet.id);
    scopes.push({ scope: { walletId: wallet.id, companyId: wallet.company_id, address: null, addresses }, next: wallet.id });
    read += addresses.length;
    after = wallet.id;
  }
  const more = await ofCompany(db('wallets'), 'company_id')
    .where({ chain: key.chain, network: key.network })
    .whereNull('deleted_at')
    .where('id', '>', after)
    .first('id');
  return { scopes, last: !more };
}

/** A pooled wallet's holding addresses, in id order: what its scope sums. */
export async function poolAddresses(db: Db, walletId: number): Promise<string[]> {
  return (await db('addresses')
    .where({ wallet_id: walletId })
    .whereIn('kind', HOLDING_KINDS)
    .whereNull('destination_tag')
    .orderBy('id')
    .pluck('address')) as string[];
}
