import { BaseError, type DetectContext, type DetectResult, type DetectedTransfer, parseLossless } from '@walletd/plugin-kit';
import { TOKEN_PROGRAM, parseTokenContract } from './programs';

/**
 * The raw Solana block the reader hands to a worker: the bytes of
 * `{"slot":<n>,"block":<getBlock(n) JSON-RPC response>}`, the node's answer spliced in unparsed
 * (`encoding` json or jsonParsed, `transactionDetails` full, `maxSupportedTransactionVersion` 0).
 */
interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner?: string;
  programId?: string;
  uiTokenAmount: { amount: string };
}

interface RpcMeta {
  err: unknown;
  fee: number | string;
  preBalances: (number | string)[];
  postBalances: (number | string)[];
  preTokenBalances?: TokenBalance[] | null;
  postTokenBalances?: TokenBalance[] | null;
  loadedAddresses?: { writable: string[]; readonly: string[] } | null;
}

type AccountKey = string | { pubkey: string };

interface RpcTransaction {
  transaction: { signatures: string[]; message: { accountKeys: AccountKey[] } };
  meta: RpcMeta | null;
}

interface RpcBlock {
  blockhash: string;
  previousBlockhash: string;
  parentSlot: number;
  blockHeight?: number | null;
  transactions?: RpcTransaction[];
}

/** SOL credits carry the account's index in the transaction; token credits 256 + it (a transaction names at most 256 accounts). */
export const TOKEN_EVENT_OFFSET = 256;

const decoder = new TextDecoder();

function unwrap(value: unknown, slot: unknown): RpcBlock {
  if (value && typeof value === 'object' && 'jsonrpc' in value) {
    const r = value as { result?: unknown; error?: { message?: string } };
    if (r.error) throw new BaseError('node_answer_invalid', `node error for slot ${slot}: ${r.error.message ?? 'unknown'}`);
    if (r.result === null || r.result === undefined) throw new BaseError('node_answer_invalid', `node returned no block for slot ${slot}`);
    return r.result as RpcBlock;
  }
  return value as RpcBlock;
}

const keyOf = (k: AccountKey | undefined): string | undefined => (typeof k === 'string' ? k : k?.pubkey);

/**
 * Every account of a transaction in index order: the message's keys, then (json encoding, v0
 * transactions) the keys loaded from address lookup tables, writable first. jsonParsed lists them
 * all in `accountKeys` already.
 */
function allKeys(tx: RpcTransaction): AccountKey[] {
  const keys = tx.transaction.message.accountKeys;
  const loaded = tx.meta?.loadedAddresses;
  if (!loaded || (loaded.writable.length === 0 && loaded.readonly.length === 0) || typeof keys[0] !== 'string') return keys;
  return [...keys, ...loaded.writable, ...loaded.readonly];
}

/** A lamport balance: exact only if the double held it (a larger one asks for the lossless parse). */
class Imprecise extends BaseError {
  constructor() {
    super('input_invalid', 'a lamport balance beyond 2^53 in the fast parse');
  }
}
const MAX_EXACT = Number.MAX_SAFE_INTEGER;
function lamports(v: number | string | undefined): bigint {
  if (typeof v === 'string') return BigInt(v);
  if (v === undefined) return 0n;
  if (!Number.isSafeInteger(v)) throw new Imprecise();
  return BigInt(v);
}

/**
 * Pure and deterministic; only transactions with `meta.err` null count (a failed one moves
 * nothing but its fee, whatever its balance arrays say). Credited, one event per (transaction,
 * owner, asset):
 * - SOL: a watched account whose lamports rose (`postBalances - preBalances` at its index), unless
 *   the account is a token account in this transaction (its lamports are rent or wrapped SOL);
 *   eventIndex = the account's index;
 * - SPL: a watched token account (the registered associated token account of a deposit address)
 *   of an allow-listed mint, under the program it was listed with, owned by a watched address,
 *   whose token amount rose (`postTokenBalances - preTokenBalances`: transfers by inner
 *   instructions, swaps and programs paying the address count the same); `toKey` = the token
 *   account, the service credits its owner in that mint only; eventIndex = 256 + its index.
 * The transaction's message does not change when it lands in another block, so neither do the
 * indexes. Amounts: token amounts are strings; lamports are read from the fast parse when the
 * double holds them exactly, and a watched account's balance beyond 2^53 (where the double may
 * not) from a lossless re-parse of the block; the hot path looks up only accounts whose balance
 * rose.
 */
export function detect(raw: Uint8Array, ctx: DetectContext): DetectResult {
  const text = decoder.decode(raw);
  try {
    return detectParsed(JSON.parse(text), ctx);
  } catch (e) {
    if (!(e instanceof Imprecise)) throw e;
    return detectParsed(parseLossless(text), ctx);
  }
}

function detectParsed(parsed: unknown, ctx: DetectContext): DetectResult {
  const envelope = parsed as { slot: number | string; block: unknown };
  const slot = BigInt(envelope.slot);
  const block = unwrap(envelope.block, slot);
  const { watched, tokens } = ctx;
  const transfers: DetectedTransfer[] = [];
  for (const tx of block.transactions ?? []) {
    const meta = tx.meta;
    if (!meta || meta.err !== null) continue;
    const txHash = tx.transaction.signatures[0] as string;
    let keys: AccountKey[] | null = null;
    const pre = meta.preTokenBalances ?? [];
    const post = meta.postTokenBalances ?? [];
    // Token accounts of this transaction: their lamports are never SOL deposits.
    let tokenIndexes: Set<number> | null = null;
    if (pre.length > 0 || post.length > 0) {
      tokenIndexes = new Set();
      for (const b of pre) tokenIndexes.add(b.accountIndex);
      for (const b of post) tokenIndexes.add(b.accountIndex);
    }
    const message = tx.transaction.message.accountKeys;
    const preBalances = meta.preBalances;
    const postBalances = meta.postBalances;
    for (let i = 0; i < preBalances.length; i++) {
      const pre_ = preBalances[i];
      const post_ = postBalances[i];
      // Only a rise can be a deposit: fee payers and senders (most changes) are ruled out before any
      // lookup, where the doubles are exact (two balances beyond 2^53 may read equal and differ).
      if (typeof pre_ === 'number' && typeof post_ === 'number' && pre_ <= MAX_EXACT && post_ <= MAX_EXACT) {
        if (post_ <= pre_) continue;
      } else if (pre_ === post_ && typeof pre_ === 'string') continue;
      if (tokenIndexes?.has(i)) continue;
      keys ??= allKeys(tx);
      const key = keyOf(keys[i] ?? message[i]);
      if (key === undefined || !watched.has(key)) continue;
      // Beyond 2^53 on a watched account: `lamports` asks for the lossless re-parse of the block.
      const delta = lamports(post_) - lamports(pre_);
      if (delta <= 0n) continue;
      const from = largestLamportDecrease(meta, keys);
      transfers.push({
        txHash,
        eventIndex: i,
        ...(from !== undefined ? { from, fromKey: from } : {}),
        to: key,
        toKey: key,
        assetKey: ctx.native.key,
        amount: delta,
        eventType: 'sol_transfer',
      });
    }
    if (tokenIndexes === null || tokens.size === 0) continue;
    const sorted = [...tokenIndexes].sort((a, b) => a - b);
    for (const index of sorted) {
      const before = pre.find((b) => b.accountIndex === index);
      const after = post.find((b) => b.accountIndex === index);
      const entry = (after ?? before) as TokenBalance;
      const token = tokens.get(entry.mint);
      if (!token) continue;
      // Listed under one program only: a mint of the same address under another program is not it.
      const program = parseTokenContract(token.contractAddress ?? entry.mint).program;
      if ((entry.programId ?? TOKEN_PROGRAM) !== program) continue;
      const delta = BigInt(after?.uiTokenAmount.amount ?? '0') - BigInt(before?.uiTokenAmount.amount ?? '0');
      if (delta <= 0n) continue;
      const owner = entry.owner;
      if (owner === undefined || (before && before.owner !== owner)) continue;
      keys ??= allKeys(tx);
      const account = keyOf(keys[index]);
      if (account === undefined || !watched.has(account) || !watched.has(owner)) continue;
      const from = largestTokenDecrease(pre, post, entry.mint);
      transfers.push({
        txHash,
        eventIndex: TOKEN_EVENT_OFFSET + index,
        ...(from !== undefined ? { from, fromKey: from } : {}),
        to: account,
        toKey: account,
        assetKey: token.key,
        amount: delta,
        eventType: 'spl_transfer',
        extra: { owner, mint: entry.mint },
      });
    }
  }
  return {
    block: { number: slot, hash: block.blockhash, parentHash: block.previousBlockhash },
    transfers,
  };
}

/** The sender of SOL: the account whose lamports fell most (off the hot path: only for a credit). */
function largestLamportDecrease(meta: RpcMeta, keys: AccountKey[]): string | undefined {
  let best: string | undefined;
  let most = 0n;
  for (let i = 0; i < meta.preBalances.length; i++) {
    const fall = lamports(meta.preBalances[i]) - lamports(meta.postBalances[i]);
    if (fall > most) {
      most = fall;
      best = keyOf(keys[i]);
    }
  }
  return best;
}

/** The sender of a token: the owner of the token account of that mint whose amount fell most. */
function largestTokenDecrease(pre: TokenBalance[], post: TokenBalance[], mint: string): string | undefined {
  let best: string | undefined;
  let most = 0n;
  for (const b of pre) {
    if (b.mint !== mint) continue;
    const after = post.find((p) => p.accountIndex === b.accountIndex);
    const fall = BigInt(b.uiTokenAmount.amount) - BigInt(after?.uiTokenAmount.amount ?? '0');
    if (fall > most) {
      most = fall;
      best = b.owner;
    }
  }
  return best;
}
