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
import { type WalkedRow, scopedCompanyWalk } from './scopedCompanyWalk';
import { KIND_CODE, type Cursor, type PageFilters, type PageMode, pageStatement, statementName } from './transactionPageText';
import { type StoredWithdrawalOutput, outputMemo } from '@walletd/core';

export interface TransactionQuery extends PageFilters {
  /**
   * The console's search box: a transaction hash, or an address either side of the transfer (a
   * withdrawal's source or any of its recipients). 0x-hex compares case-insensitively (EVM
   * checksums); other encodings (base58, bech32, TON) exactly.
   */
  hashOrAddress?: string;
  /** The `next` of the previous page (opaque), or a transfer id (the form before withdrawals were listed). */
  after?: string;
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

/** Cursor "<microseconds>.<d|w>.<id>": newest first by when the transaction appeared, then kind, then id. */
async function parseAfter(db: Db, after: string): Promise<Cursor | null> {
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

/**
 * Up to this many wallets in a key's scope, a page walks each wallet's index (at most a page each);
 * past it, the company's index filtered by wallet reads less than a page per wallet would.
 */
const PER_WALLET_SCOPE = 16;

/**
 * How a page of this query reads the history (transactionPageText.ts's PageMode). A key limited to
 * a few wallets walks each of their indexes (issue 48 §5: the company's index filtered by wallet
 * and planned afresh on every call went 9.0 -> 14.5 ms p50 from 10k to 1M transfers); a larger
 * scope walks the company's rows up to a cap (scopedCompanyWalk.ts), and is planned for its ids
 * only where that walk cannot tell. A scope naming every live wallet of the company takes the walk
 * too: its first rows a side are all its own, so the walk stops at the page. Why no check for that
 * first: it was a statement per page, and on its kept plan (a nested loop over the ids) it cost
 * 26-28 ms of PostgreSQL time with 1,010 ids, against 1.0 ms for the walk (bench/README.md, issue 48 §5).
 * The searches have their own indexes and plans and keep the planned page.
 */
function pageMode(q: TransactionQuery): PageMode {
  if (q.walletIds === null || q.walletId !== undefined) return 'company';
  if (q.walletIds.size <= PER_WALLET_SCOPE) return 'perWallet';
  return q.search === undefined && q.hashOrAddress === undefined ? 'capped' : 'planned';
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
  const mode = pageMode(q);
  const walked = mode === 'capped' ? await scopedCompanyWalk<Row & WalkedRow>(db, q, cursor) : null;
  const page = async () => {
    const { text, values, genericPlan } = pageStatement(q, cursor, mode === 'capped' ? 'planned' : mode);
    return runPrepared<Row>(db, { name: statementName(text), text, genericPlan }, values);
  };
  const rows = walked ?? (await page());
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
