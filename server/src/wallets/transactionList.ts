import { createHash } from 'node:crypto';
import {
  type AssetRef,
  BaseError,
  type Db,
  type PluginRegistry,
  type WalletdConfig,
  fromBaseUnits,
  parseBaseUnits,
  runPrepared,
} from '@walletd/core';
import { knownAssets } from './transactions';
import { indexedHeights, liveConfirmations } from './liveConfirmations';
import { scopeCoversCompany } from './scopeCoversCompany';
import { type StoredWithdrawalOutput, outputMemo } from '@walletd/core';

export interface TransactionQuery {
  companyId: number;
  walletIds: ReadonlySet<number> | null;
  walletId?: number;
  search?: string;
  /**
   * The console's search box: a transaction hash, or an address either side of the transfer (a
   * withdrawal's source or any of its recipients). 0x-hex compares case-insensitively (EVM
   * checksums); other encodings (base58, bech32, TON) exactly.
   */
  hashOrAddress?: string;
  /** The `next` of the previous page (opaque), or a transfer id (the form before withdrawals were listed). */
  after?: string;
  limit: number;
}

/** One row of either kind, as the union query returns it. */
interface Row {
  kind: 'deposit' | 'withdrawal';
  id: number;
  wallet_id: number;
  address_id: number | null;
  chain: string;
  network: string;
  tx_hash: string;
  event_index: number;
  direction: string;
  event_type: string;
  asset_key: string;
  asset: AssetRef | null;
  amount: string;
  from_address: string | null;
  to_address: string | null;
  outputs: StoredWithdrawalOutput[] | null;
  block_number: string | number | null;
  status: string;
  confirmations: number | null;
  reason: string | null;
  created_at: Date;
  updated_at: Date;
  sort_us: string;
}

// Withdrawals are transactions from signing on: their transaction exists (and counts in balances).
const WITHDRAWAL_STATES = `('signed', 'broadcast', 'confirmed', 'rejected')`;
// The transaction states of a withdrawal in the deposits' vocabulary: not final, final, did not land.
const WITHDRAWAL_STATUS = `case w.status when 'confirmed' then 'confirmed' when 'rejected' then 'rejected' else 'pending' end`;

const KIND_CODE = { deposit: 'd', withdrawal: 'w' } as const;

/** One name per variant of the list's text: which filters are present, and the page bound. */
const statementNames = new Map<string, string>();
function statementName(text: string): string {
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

/** Cursor "<microseconds>.<d|w>.<id>": newest first by when the transaction appeared, then kind, then id. */
async function parseAfter(db: Db, after: string): Promise<[string, string, number] | null> {
  const m = /^([0-9]{1,20})\.([dw])\.([1-9][0-9]{0,15})$/.exec(after);
  if (m) return [m[1] as string, m[2] as string, Number(m[3])];
  if (/^[1-9][0-9]{0,15}$/.test(after)) {
    const row = (await db('transfers')
      .where({ id: Number(after) })
      .first(db.raw('(extract(epoch from created_at) * 1000000)::bigint::text as us'))) as { us: string } | undefined;
    return row ? [row.us, 'd', Number(after)] : null;
  }
  throw new BaseError('validation_failed', 'after must be the `next` of a previous page');
}

/** Microseconds since the epoch as an exact timestamptz literal (a Date keeps milliseconds only). */
function microsecondTime(us: string): string {
  const n = BigInt(us);
  // Past what a timestamp holds: every row is older (as the bigint comparison had it).
  if (n >= 8_640_000_000_000_000_000n) return 'infinity';
  const ms = new Date(Number(n / 1000n)).toISOString();
  return ms.replace('Z', `${(n % 1000n).toString().padStart(3, '0')}Z`);
}

const MAX_ID = '9223372036854775807';

/**
 * Up to this many wallets in a key's scope, a page walks each wallet's index (at most a page each);
 * past it, the company's index filtered by wallet reads less than a page per wallet would.
 */
const PER_WALLET_SCOPE = 16;

/** The page sizes whose text is prepared: a page reads at most the next one of them per side. */
const PAGE_BOUNDS = [10, 50, 100, 200] as const;

/**
 * Each side's LIMIT, written in the text: the smallest bound that holds the page. Why: the pages
 * run on a generic plan (runPrepared's `genericPlan`), which plans a LIMIT given as a parameter
 * for a tenth of the table, not for a page. Reading up to the bound instead of the page is at most
 * the next size's rows of two index walks; the page itself is cut by the outer LIMIT.
 */
function pageBound(limit: number): number {
  return PAGE_BOUNDS.find((b) => b >= limit) ?? limit;
}

/**
 * Deposits and withdrawals of the key's wallets, newest first (deposits when detected,
 * withdrawals when signed); `search` matches an on-chain hash exactly (case-insensitive).
 * Archived wallets are hidden, as everywhere in the API.
 */
export async function listTransactions(db: Db, config: WalletdConfig, plugins: PluginRegistry, q: TransactionQuery) {
  if (q.search !== undefined && !/^(0x)?[0-9a-fA-F]{16,128}$|^[1-9A-HJ-NP-Za-km-z]{32,100}$/.test(q.search))
    throw new BaseError('validation_failed', 'search must be a transaction hash');
  const cursor = q.after === undefined ? null : await parseAfter(db, q.after);
  if (q.after !== undefined && cursor === null) return { transactions: [], next: null };
  // The same filters on both sides; each side is limited before the merge. Only the filters asked
  // for are in the text (an `is null or` filter would leave a generic plan unable to use the
  // tx_hash index), and each variant's text is prepared once per connection under its own name.
  const values: unknown[] = [];
  const param = (value: unknown, cast = '') => {
    values.push(value);
    return `$${values.length}${cast}`;
  };
  // Each side walks its index on (company or wallet, time desc, id desc) and stops at the page:
  // the order and the cursor compare the stored timestamps themselves (an expression over them,
  // such as the cursor's microseconds, matches no index and sorted the whole history, issue 32).
  // Across the two sides a page is ordered by time, then kind ('w' before 'd'), then id; on
  // each side that is a (time, id) comparison whose id bound says whether the cursor's own time
  // is still to be read on that side: all of it (MAX_ID), none (0), or below the cursor's id.
  // A key limited to a few wallets: each side walks each of those wallets' index, up to the page,
  // under one generic plan (`perWallet` below), instead of the company's index filtered by wallet
  // and planned afresh on every call (issue 48 §5: 9.0 -> 14.5 ms p50 from 10k to 1M transfers).
  const perWallet = q.walletIds !== null && q.walletId === undefined && q.walletIds.size <= PER_WALLET_SCOPE;
  // A larger scope that names every live wallet of the company: the company's page and its generic
  // plan, the filter by the key's wallets kept (scopeCoversCompany.ts says why that is safe).
  const wholeCompany =
    q.walletIds !== null && q.walletId === undefined && !perWallet && (await scopeCoversCompany(db, q.companyId, q.walletIds));
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
    if (q.walletIds !== null && !perWallet) parts.push(`${alias}.wallet_id = any(${param([...q.walletIds], '::int[]')})`);
    if (q.search !== undefined) parts.push(`lower(${alias}.tx_hash) = lower(${param(q.search, '::text')})`);
    if (q.hashOrAddress !== undefined) parts.push(hashOrAddressFilter(alias, param(q.hashOrAddress, '::text'), q.hashOrAddress));
    if (cursor) {
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
  const microseconds = (column: string) => `(extract(epoch from ${column}) * 1000000)::bigint::text`;
  const deposits = filters('t', 't.created_at');
  const withdrawals = filters('w', 'w.signed_at');
  // The pages run on their generic plan (issue 32), and so does the console's search by hash or
  // address: its OR of the lower() indexes is the same bitmap plan for every value, and planned
  // afresh per call it cost 2.9 ms of planning (a branch per month and index) against 0.3 ms of
  // execution at 1M transfers, where PostgreSQL's own rule had stopped keeping a generic plan
  // (bench/README.md, scale). The API's `search` is planned as PostgreSQL chooses, and so is the
  // page of a key limited to more than PER_WALLET_SCOPE wallets that leaves some of the company's
  // out: a generic plan, not knowing them, walked the company's withdrawals filtering by wallet
  // (all 4,000 of them, listPlans.test) where a plan made for the values reads about a page per
  // wallet. Their LIMIT stays a parameter, which
  // keeps PostgreSQL from preferring a generic plan for them. A smaller scope is walked wallet by
  // wallet, which one generic plan does well.
  const genericPlan = q.search === undefined && (q.walletIds === null || q.walletId !== undefined || perWallet || wholeCompany);
  const sideLimit = genericPlan ? String(pageBound(q.limit)) : param(q.limit, '::int');
  const limit = param(q.limit, '::int');
  // The rows of each side: the company's (or one wallet's) history, or each scoped wallet's in turn.
  const scoped = perWallet ? { ids: param([...(q.walletIds as ReadonlySet<number>)], '::int[]'), company: param(q.companyId) } : null;
  const from = (table: 'transfers' | 'withdrawals', alias: 't' | 'w', where: string, order: string) =>
    scoped
      ? `unnest(${scoped.ids}) as s(wallet_id)
          cross join lateral (select * from ${table} ${alias} where ${where} order by ${order} limit ${sideLimit}) ${alias}
          join wallets wl on wl.id = ${alias}.wallet_id and wl.company_id = ${scoped.company} and wl.deleted_at is null`
      : `${table} ${alias} join wallets wl on wl.id = ${alias}.wallet_id where ${where}`;
  const text = `select * from (
       (select 'deposit' as kind, t.id, t.wallet_id, t.address_id, t.chain, t.network, t.tx_hash, t.event_index, t.direction,
               t.event_type, t.asset_key, null::jsonb as asset, t.amount::text as amount, t.from_address, t.to_address,
               null::jsonb as outputs, t.block_number, t.status, t.confirmations, t.reason, t.created_at, t.updated_at,
               ${microseconds('t.created_at')} as sort_us, t.created_at as sort_at
          from ${from('transfers', 't', deposits, 't.created_at desc, t.id desc')}
         order by t.created_at desc, t.id desc limit ${sideLimit})
       union all
       (select 'withdrawal', w.id, w.wallet_id, null, w.chain, w.network, w.tx_hash, 0, 'outgoing',
               'withdrawal', w.asset_key, w.asset, w.amount::text, w.from_address, w.to_address,
               w.outputs, w.block_number, ${WITHDRAWAL_STATUS}, coalesce(w.confirmations, 0), w.reason, w.created_at, w.updated_at,
               ${microseconds('w.signed_at')}, w.signed_at
          from ${from('withdrawals', 'w', `w.status in ${WITHDRAWAL_STATES} and w.tx_hash is not null and ${withdrawals}`, 'w.signed_at desc, w.id desc')}
         order by w.signed_at desc, w.id desc limit ${sideLimit})
     ) x
     order by sort_at desc, kind desc, id desc
     limit ${limit}`;
  const rows = await runPrepared<Row>(db, { name: statementName(text), text, genericPlan }, values);
  const heights = await indexedHeights(db, rows);
  const assetCache = new Map<string, Map<string, AssetRef>>();
  const assetOf = (r: Row): AssetRef => {
    if (r.asset) {
      const { key, symbol, decimals, contractAddress } = r.asset;
      return { key, symbol, decimals, contractAddress };
    }
    const k = `${r.chain}:${r.network}`;
    if (!assetCache.has(k)) assetCache.set(k, knownAssets(config, plugins, r.chain, r.network));
    return assetCache.get(k)?.get(r.asset_key) ?? { key: r.asset_key, symbol: '?', decimals: 0, contractAddress: null };
  };
  const transactions = rows.map((r) => {
    const asset = assetOf(r);
    const show = (units: string) => fromBaseUnits(parseBaseUnits(units), asset.decimals);
    return {
      id: r.id,
      kind: r.kind,
      withdrawalId: r.kind === 'withdrawal' ? r.id : null,
      walletId: r.wallet_id,
      addressId: r.address_id,
      chain: r.chain,
      network: r.network,
      txHash: r.tx_hash,
      eventIndex: r.event_index,
      direction: r.direction,
      eventType: r.event_type,
      asset,
      amount: show(r.amount),
      fromAddress: r.from_address,
      toAddress: r.to_address,
      ...(r.outputs ? { outputs: r.outputs.map((o) => ({ toAddress: o.toAddress, amount: show(o.amount), ...outputMemo(o) })) } : {}),
      blockNumber: r.block_number === null ? null : Number(r.block_number),
      status: r.status,
      confirmations: liveConfirmations(r, heights) ?? 0,
      reason: r.reason,
      createdAt: r.created_at.toISOString(),
      updatedAt: r.updated_at.toISOString(),
    };
  });
  const last = rows[rows.length - 1];
  return {
    transactions,
    next: rows.length === q.limit && last ? `${last.sort_us}.${KIND_CODE[last.kind]}.${last.id}` : null,
  };
}
