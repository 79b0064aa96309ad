import { createHash } from 'node:crypto';
import { scopeMembership } from './scopeMembership';

/** What a list page filters on (transactionList.ts's TransactionQuery, less the paging). */
export interface PageFilters {
  companyId: number;
  walletIds: ReadonlySet<number> | null;
  walletId?: number;
  search?: string;
  hashOrAddress?: string;
  limit: number;
}

/** A parsed `after`: microseconds, kind code ('d' or 'w'), id. */
export type Cursor = [string, string, number];

/**
 * How a page reads the history:
 * - `company`: the company's index (or one wallet's, with `walletId`), on the generic plan;
 * - `perWallet`: each of a few scoped wallets' index, up to the page, on the generic plan;
 * - `capped`: the company's index read at most CAPPED_WALK rows a side, the scope applied after
 *   (scopedCompanyWalk.ts), on the generic plan;
 * - `planned`: the company's index filtered by the scope, planned for the values on every call.
 */
export type PageMode = 'company' | 'perWallet' | 'capped' | 'planned';

/** The most history rows a `capped` page reads on each side before it gives up (scopedCompanyWalk.ts). */
export const CAPPED_WALK = 1000;

export const KIND_CODE = { deposit: 'd', withdrawal: 'w' } as const;

// Withdrawals are transactions from signing on: their transaction exists (and counts in balances).
const WITHDRAWAL_STATES = `('signed', 'broadcast', 'confirmed', 'rejected')`;
// The transaction states of a withdrawal in the deposits' vocabulary: not final, final, did not land.
const WITHDRAWAL_STATUS = `case w.status when 'confirmed' then 'confirmed' when 'rejected' then 'rejected' else 'pending' end`;

const microseconds = (column: string) => `(extract(epoch from ${column}) * 1000000)::bigint::text`;

// The columns of each side, in the one order the union needs.
const DEPOSIT_COLUMNS = `'deposit' as kind, t.id, t.wallet_id, t.address_id, t.chain, t.network, t.tx_hash, t.event_index, t.direction,
  t.event_type, t.asset_key, null::jsonb as asset, t.amount::text as amount, t.from_address, t.to_address,
  null::jsonb as outputs, t.block_number, t.status, t.confirmations, t.reason, t.created_at, t.updated_at,
  ${microseconds('t.created_at')} as sort_us, t.created_at as sort_at`;
const WITHDRAWAL_COLUMNS = `'withdrawal' as kind, w.id, w.wallet_id, null::int as address_id, w.chain, w.network, w.tx_hash, 0 as event_index,
  'outgoing' as direction, 'withdrawal' as event_type, w.asset_key, w.asset, w.amount::text as amount, w.from_address, w.to_address,
  w.outputs, w.block_number, ${WITHDRAWAL_STATUS} as status, coalesce(w.confirmations, 0) as confirmations, w.reason, w.created_at,
  w.updated_at, ${microseconds('w.signed_at')} as sort_us, w.signed_at as sort_at`;

const MAX_ID = '9223372036854775807';

/** The page sizes whose text is prepared: a page reads at most the next one of them per side. */
const PAGE_BOUNDS = [10, 50, 100, 200] as const;

/**
 * Each side's LIMIT, written in the text: the smallest bound that holds the page. Why: the pages
 * run on a generic plan (runPrepared's `genericPlan`), which plans a LIMIT given as a parameter
 * for a tenth of the table, not for a page. Reading up to the bound instead of the page is at most
 * the next size's rows of two index walks; the page itself is cut by the outer LIMIT.
 */
export function pageBound(limit: number): number {
  return PAGE_BOUNDS.find((b) => b >= limit) ?? limit;
}

/** One name per variant of the list's text: which filters are present, and the page bound. */
const statementNames = new Map<string, string>();
export function statementName(text: string): string {
  let name = statementNames.get(text);
  if (!name) {
    name = `walletd_list_transactions_${createHash('sha256').update(text).digest('hex').slice(0, 16)}`;
    statementNames.set(text, name);
  }
  return name;
}

/**
 * `p` is the bound text; 0x-hex is compared lower-cased on both sides (the text stays one variant
 * per form). Every branch of the OR goes through its own lower-cased index (migration 028), so
 * the search reads the matches (a BitmapOr), not the company's history by time; other encodings
 * are then compared exactly. Outputs are found by containment in their lower-cased JSON (the GIN
 * index), then checked element by element.
 */
function hashOrAddressFilter(alias: 't' | 'w', p: string, value: string): string {
  const hex = /^0x[0-9a-fA-F]+$/.test(value);
  const eq = (col: string) => (hex ? `lower(${col}) = lower(${p})` : `lower(${col}) = lower(${p}) and ${col} = ${p}`);
  const sides = [`lower(${alias}.tx_hash) = lower(${p})`, eq(`${alias}.from_address`), eq(`${alias}.to_address`)];
  if (alias === 'w') {
    const outputs = `lower(w.outputs::text)::jsonb @> jsonb_build_array(jsonb_build_object('toaddress', lower(${p})))`;
    const exact = hex ? `lower(o->>'toAddress') = lower(${p})` : `o->>'toAddress' = ${p}`;
    sides.push(`${outputs} and exists (select 1 from jsonb_array_elements(w.outputs) o where ${exact})`);
  }
  return `(${sides.map((x) => `(${x})`).join(' or ')})`;
}

/** Microseconds since the epoch as an exact timestamptz literal (a Date keeps milliseconds only). */
function microsecondTime(us: string): string {
  const n = BigInt(us);
  // Past what a timestamp holds: every row is older (as the bigint comparison had it).
  if (n >= 8_640_000_000_000_000_000n) return 'infinity';
  const ms = new Date(Number(n / 1000n)).toISOString();
  return ms.replace('Z', `${(n % 1000n).toString().padStart(3, '0')}Z`);
}

/** A page's statement: its text, its values, and whether it runs on its generic plan. */
export interface PageStatement {
  text: string;
  values: unknown[];
  genericPlan: boolean;
}

/**
 * The text of one page. Each side walks its index on (company or wallet, time desc, id desc) and
 * stops at the page: the order and the cursor compare the stored timestamps themselves (an
 * expression over them, such as the cursor's microseconds, matches no index and sorted the whole
 * history, issue 32). Only the filters asked for are in the text (an `is null or` filter would
 * leave a generic plan unable to use the tx_hash index); each variant is prepared once per
 * connection under its own name.
 */
export function pageStatement(q: PageFilters, cursor: Cursor | null, mode: PageMode): PageStatement {
  const values: unknown[] = [];
  const param = (value: unknown, cast = '') => {
    values.push(value);
    return `$${values.length}${cast}`;
  };
  const perWallet = mode === 'perWallet';
  const filters = (alias: 't' | 'w', timeColumn: string) => {
    // One wallet's page: its company is checked on the wallet's row, so the wallet's index is the
    // only one that fits. Why: the plan kept for the statement is generic (no value known), and
    // with the company on the history row it could walk the company's index and filter by wallet,
    // reading the company's whole history for a wallet that has few rows on that side.
    const parts = perWallet
      ? [`${alias}.wallet_id = s.wallet_id`]
      : q.walletId === undefined
        ? [`${alias}.company_id = ${param(q.companyId)}`, 'wl.deleted_at is null']
        : [`${alias}.wallet_id = ${param(q.walletId)}`, `wl.company_id = ${param(q.companyId)}`, 'wl.deleted_at is null'];
    // A capped walk applies the scope after it has read the company's rows (scopedCompanyWalk.ts).
    if (q.walletIds !== null && !perWallet && mode !== 'capped')
      parts.push(`${alias}.wallet_id = any(${param([...q.walletIds], '::int[]')})`);
    if (q.search !== undefined) parts.push(`lower(${alias}.tx_hash) = lower(${param(q.search, '::text')})`);
    if (q.hashOrAddress !== undefined) parts.push(hashOrAddressFilter(alias, param(q.hashOrAddress, '::text'), q.hashOrAddress));
    if (cursor) {
      // Across the two sides a page is ordered by time, then kind ('w' before 'd'), then id; on
      // each side that is a (time, id) comparison whose id bound says whether the cursor's own
      // time is still to be read on that side: all of it (MAX_ID), none (0), or below its id.
      const [us, kind, id] = cursor;
      const side = alias === 't' ? KIND_CODE.deposit : KIND_CODE.withdrawal;
      const idBound = kind === side ? String(id) : side === KIND_CODE.deposit ? MAX_ID : '0';
      const time = param(microsecondTime(us), '::timestamptz');
      parts.push(`(${timeColumn}, ${alias}.id) < (${time}, ${param(idBound, '::bigint')})`);
      // The same bound on its own, which partition pruning understands (a row comparison it does
      // not): the generic plan leaves out the months after the cursor when the page starts.
      if (alias === 't') parts.push(`t.created_at <= ${time}`);
    }
    return parts.join(' and ');
  };
  // The API's `search` is planned for its value, and so is a `planned` page: a generic plan, not
  // knowing the scope's wallets, walked the company's withdrawals filtering by wallet (all 4,000 of
  // them, listPlans.test) where a plan made for the values reads about a page per wallet. Their
  // LIMIT stays a parameter, which keeps PostgreSQL from preferring a generic plan for them.
  const genericPlan = q.search === undefined && mode !== 'planned';
  const sideLimit = genericPlan ? String(pageBound(q.limit)) : param(q.limit, '::int');
  const scoped = perWallet ? { ids: param([...(q.walletIds as ReadonlySet<number>)], '::int[]'), company: param(q.companyId) } : null;
  const from = (table: 'transfers' | 'withdrawals', alias: 't' | 'w', where: string, order: string) =>
    scoped
      ? `unnest(${scoped.ids}) as s(wallet_id)
          cross join lateral (select * from ${table} ${alias} where ${where} order by ${order} limit ${sideLimit}) ${alias}
          join wallets wl on wl.id = ${alias}.wallet_id and wl.company_id = ${scoped.company} and wl.deleted_at is null`
      : `${table} ${alias} join wallets wl on wl.id = ${alias}.wallet_id where ${where}`;
  const deposits = { columns: DEPOSIT_COLUMNS, from: from('transfers', 't', filters('t', 't.created_at'), 't.created_at desc, t.id desc') };
  const withdrawalsWhere = `w.status in ${WITHDRAWAL_STATES} and w.tx_hash is not null and ${filters('w', 'w.signed_at')}`;
  const withdrawals = { columns: WITHDRAWAL_COLUMNS, from: from('withdrawals', 'w', withdrawalsWhere, 'w.signed_at desc, w.id desc') };
  const orders = { deposits: 't.created_at desc, t.id desc', withdrawals: 'w.signed_at desc, w.id desc' };
  if (mode === 'capped') {
    // Each side: the company's rows in order, numbered, at most CAPPED_WALK of them; then those of
    // the key's wallets (`mine`) and the walk's last row (the sign the cap was reached), up to the
    // side's page. The scope is tested once per row (scopeMembership.ts: a bitmap of the ids, or
    // a hashed subplan); `offset 0` keeps `mine` computed in its subquery, where pulled up into the
    // filter and the output it was two tests, and two hashes of the ids a side. A Limit over a
    // filter over the walk stops the walk as soon as the page is full. The merge then returns the
    // page's rows of the key's wallets, each carrying what both sides found (scopedCompanyWalk.ts).
    const mine = scopeMembership('c.wallet_id', q.walletIds as ReadonlySet<number>, param);
    const side = (s: { columns: string; from: string }, order: string) =>
      `(select * from (select c.*, ${mine} as mine
                         from (select ${s.columns}, row_number() over (order by ${order}) as walked
                                 from ${s.from} order by ${order} limit ${CAPPED_WALK}) c offset 0) c
         where c.mine or c.walked = ${CAPPED_WALK}
         limit ${sideLimit})`;
    const count = (kind: string) => `count(*) filter (where u.mine and u.kind = '${kind}') over ()`;
    const capped = (kind: string) => `bool_or(u.walked = ${CAPPED_WALK} and u.kind = '${kind}') over ()`;
    const text = `select * from (
         select u.*, ${count('deposit')} as deposits_mine, ${capped('deposit')} as deposits_capped,
                ${count('withdrawal')} as withdrawals_mine, ${capped('withdrawal')} as withdrawals_capped
           from (${side(deposits, orders.deposits)} union all ${side(withdrawals, orders.withdrawals)}) u
       ) x
       where x.mine
       order by sort_at desc, kind desc, id desc
       limit ${param(q.limit, '::int')}`;
    return { text, values, genericPlan };
  }
  const limit = param(q.limit, '::int');
  const text = `select * from (
       (select ${deposits.columns} from ${deposits.from} order by ${orders.deposits} limit ${sideLimit})
       union all
       (select ${withdrawals.columns} from ${withdrawals.from} order by ${orders.withdrawals} limit ${sideLimit})
     ) x
     order by sort_at desc, kind desc, id desc
     limit ${limit}`;
  return { text, values, genericPlan };
}
