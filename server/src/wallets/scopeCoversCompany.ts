import { type Db, runPrepared } from '@walletd/core';

/**
 * Whether a key's wallets include every live wallet of its company (issue 48 §5). Keys are often
 * limited to "all our wallets" listed one by one: their pages can then walk the company's index,
 * the wallet filter kept, on one generic plan (planning the company page afresh with 1,000 ids cost
 * 9.5 ms a call). Only the plan depends on the answer, never which rows a page may return: the
 * filter by the key's wallets stays in the statement, so a wallet made between this read and the
 * page is still left out.
 */
export async function scopeCoversCompany(db: Db, companyId: number, walletIds: ReadonlySet<number>): Promise<boolean> {
  // An anti-join by hash: `id <> all($2)` would compare every wallet with every id.
  const rows = await runPrepared<{ outside: boolean }>(
    db,
    {
      name: 'walletd_scope_covers_company',
      text: `select exists (
               select 1 from wallets w
                where w.company_id = $1 and w.deleted_at is null
                  and not exists (select 1 from unnest($2::int[]) s(id) where s.id = w.id)
             ) as outside`,
    },
    [companyId, [...walletIds]],
  );
  return rows[0]?.outside === false;
}
