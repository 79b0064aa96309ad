import { type Db, runPrepared } from '@walletd/core';
import { type Cursor, type PageFilters, pageStatement, statementName } from './transactionPageText';

/** What each row of a capped walk says of both sides' walks (transactionPageText.ts, `capped`). */
export interface WalkedRow {
  deposits_mine: number;
  deposits_capped: boolean;
  withdrawals_mine: number;
  withdrawals_capped: boolean;
}

/**
 * A page for a key limited to many wallets that leaves some of its company's out (issue 48 §5),
 * on one generic plan, or null where the walk cannot tell the page and the caller must plan it.
 *
 * Why: planned for its 1,000 ids on every call, such a page cost 9.5 ms of planning at 1M
 * transfers; a generic plan, not knowing the ids, may walk the company's whole history for wallets
 * that are dormant. So each side reads the company's rows in order, at most CAPPED_WALK of them,
 * and keeps those of the key's wallets up to the page. A side is exact when it found the page's
 * `limit` of them (they are the first in order: every row before them was read) or when it read
 * the company's rows to their end before the cap; then the two sides merged are the page. A side
 * that reached the cap short of the page (the key's wallets are quiet in the company's recent
 * history), or a walk that found none of their rows, returns null: the planned page reads their
 * own indexes (listPlans.test).
 */
export async function scopedCompanyWalk<R extends WalkedRow>(db: Db, q: PageFilters, cursor: Cursor | null): Promise<R[] | null> {
  const { text, values, genericPlan } = pageStatement(q, cursor, 'capped');
  const rows = await runPrepared<R>(db, { name: statementName(text), text, genericPlan }, values);
  const first = rows[0];
  if (!first) return null;
  const exact = (mine: number, capped: boolean) => Number(mine) >= q.limit || !capped;
  return exact(first.deposits_mine, first.deposits_capped) && exact(first.withdrawals_mine, first.withdrawals_capped) ? rows : null;
}
