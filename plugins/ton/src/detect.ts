import { Address, Cell, type Slice, loadTransaction } from '@ton/core';
import type { DetectContext, DetectResult, DetectedTransfer } from '@walletd/plugin-kit';
import { BaseError } from '@walletd/plugin-kit';

/**
 * The raw block the reader hands to a worker: the bytes of
 * `{"seqno":n,"hash":"<hex>","parentHash":"<hex>","transactions":[{"account":"0:<hex>","boc":"<base64>"}]}`:
 * every basechain transaction of the shard blocks masterchain block `n` committed, each the
 * transaction's own BOC (its cell hash is the transaction hash). Only the transactions of watched
 * accounts are parsed; a parsed one must belong to the account it is listed under.
 */
export interface TonBlock {
  seqno: number;
  hash: string;
  parentHash: string;
  transactions: { account: string; boc: string }[];
}

export const OP_COMMENT = 0x00000000;
export const OP_TRANSFER_NOTIFICATION = 0x7362d09c;
export const OP_EXCESSES = 0xd53276db;
export const OP_INTERNAL_TRANSFER = 0x178d4519;
/**
 * The query_id of walletd's jetton transfers: this tag in the high 32 bits, the source wallet's
 * seqno below. The jetton wallets echo it in the `excesses` that returns the unused TON, which is
 * how detect tells that refund (already netted in the withdrawal's fee) from anyone else's message
 * with the same op, which is a deposit like any other.
 */
const OWN_QUERY_TAG = 0x77646a74n; // "wdjt"
export const ownJettonQueryId = (seqno: number): bigint => (OWN_QUERY_TAG << 32n) | BigInt(seqno);
/** An `excesses` answering one of walletd's own jetton transfers (its query_id carries the tag). */
function isOwnExcess(body: Slice): boolean {
  if (body.remainingBits < 96) return false;
  const s = body.clone();
  return s.loadUint(32) === OP_EXCESSES && s.loadUintBig(64) >> 32n === OWN_QUERY_TAG;
}
const utf8 = new TextDecoder('utf-8', { fatal: true });
const decoder = new TextDecoder();

/** A text comment (op 0 then UTF-8, continued in refs); null when absent or not readable text (binary, encrypted). */
export function commentOf(body: Slice | null): string | null {
  if (!body || body.remainingBits < 32) return null;
  if (body.loadUint(32) !== OP_COMMENT) return null;
  try {
    return utf8.decode(readTail(body));
  } catch {
    return null;
  }
}

function readTail(s: Slice): Uint8Array {
  const parts: Buffer[] = [];
  let cur: Slice | null = s;
  while (cur) {
    if (cur.remainingBits % 8 !== 0) throw new BaseError('encoding_invalid', 'not bytes');
    parts.push(cur.loadBuffer(cur.remainingBits / 8));
    cur = cur.remainingRefs > 0 ? cur.loadRef().beginParse() : null;
  }
  return Buffer.concat(parts);
}

export function detect(raw: Uint8Array, ctx: DetectContext): DetectResult {
  const block = JSON.parse(decoder.decode(raw)) as TonBlock;
  const testOnly = ctx.network !== 'mainnet';
  const show = (a: Address, bounceable: boolean) => a.toString({ bounceable, urlSafe: true, testOnly });
  const transfers: DetectedTransfer[] = [];
  const jettonTransfer = (txHash: string, to: string, wallet: JettonWallet, credit: JettonCredit): DetectedTransfer => ({
    txHash,
    eventIndex: 1,
    ...(credit.from ? { from: show(credit.from, true), fromKey: credit.from.toRawString() } : {}),
    to,
    toKey: wallet.key,
    assetKey: wallet.assetKey,
    amount: credit.amount,
    eventType: 'jetton_transfer',
    extra: { memo: credit.memo },
  });
  for (const item of block.transactions) {
    const owner = ctx.watched.has(item.account);
    const jettonWallet = owner ? null : registeredJettonWallet(item.account, ctx);
    if (!owner && !jettonWallet) continue;
    const cell = Cell.fromBase64(item.boc);
    const tx = loadTransaction(cell.beginParse());
    const account = `0:${tx.address.toString(16).padStart(64, '0')}`;
    if (account !== item.account)
      throw new BaseError('node_answer_invalid', `transaction listed under ${item.account} belongs to ${account}`);
    if (jettonWallet) {
      const silent = silentJettonTransfer(tx);
      if (silent) transfers.push(jettonTransfer(cell.hash().toString('hex'), show(Address.parseRaw(account), true), jettonWallet, silent));
      continue;
    }
    const msg = tx.inMessage;
    if (!msg || msg.info.type !== 'internal' || msg.info.bounced) continue;
    // A bounceable message our wallet could not process went back to its sender (value and all).
    if (tx.description.type === 'generic' && tx.description.bouncePhase?.type === 'ok') continue;
    const txHash = cell.hash().toString('hex');
    const to = show(Address.parseRaw(account), false);
    const body = msg.body.beginParse();
    const op = body.remainingBits >= 32 ? body.preloadUint(32) : null;
    // The change of our own jetton withdrawal, netted in its fee; anyone else's excesses is a deposit.
    if (op === OP_EXCESSES && isOwnExcess(body)) continue;
    if (op === OP_TRANSFER_NOTIFICATION) {
      // Only from the deposit address's own jetton wallet (see notifiedJettons).
      const wallet = registeredJettonWallet(msg.info.src.toRawString(), ctx);
      const credit = wallet ? notifiedJettons(body) : null;
      if (wallet && credit) transfers.push(jettonTransfer(txHash, to, wallet, credit));
      // The notification's own TON (the sender's forward amount) is part of the jetton transfer.
      continue;
    }
    const value = msg.info.value.coins;
    if (value <= 0n) continue;
    transfers.push({
      txHash,
      eventIndex: 0,
      from: show(msg.info.src, true),
      fromKey: msg.info.src.toRawString(),
      to,
      toKey: account,
      assetKey: ctx.native.key,
      amount: value,
      eventType: 'ton_transfer',
      extra: { memo: op === OP_COMMENT ? commentOf(msg.body.beginParse()) : null },
    });
  }
  return { block: { number: BigInt(block.seqno), hash: block.hash, parentHash: block.parentHash }, transfers };
}

interface JettonWallet {
  key: string;
  assetKey: string;
}
interface JettonCredit {
  amount: bigint;
  from: Address | null;
  memo: string | null;
}

/** The registered token account `<jetton wallet>:<master>` this account is, for an allow-listed master. */
function registeredJettonWallet(account: string, ctx: DetectContext): JettonWallet | null {
  for (const token of ctx.tokens.values()) {
    const key = `${account}:${token.matchKey}`;
    if (ctx.watched.has(key)) return { key, assetKey: token.key };
  }
  return null;
}

/**
 * Jettons received by a deposit address's own jetton wallet that no `transfer_notification` will
 * announce: the sender asked for a `forward_ton_amount` of 0, so the jetton wallet tells the owner
 * nothing, yet its balance grew. Read from the jetton wallet's own transaction: an
 * `internal_transfer` it executed successfully (its code accepts one only from the master or a
 * jetton wallet of the same master, so the jettons are real). With a forward amount the
 * notification at the owner is what is credited (as before), never both.
 */
function silentJettonTransfer(tx: ReturnType<typeof loadTransaction>): JettonCredit | null {
  const msg = tx.inMessage;
  if (msg?.info.type !== 'internal' || msg.info.bounced) return null;
  const d = tx.description;
  if (d.type !== 'generic' || d.aborted || d.computePhase.type !== 'vm' || !d.computePhase.success) return null;
  if (d.actionPhase && !d.actionPhase.success) return null;
  try {
    const body = msg.body.beginParse();
    if (body.remainingBits < 32 || body.loadUint(32) !== OP_INTERNAL_TRANSFER) return null;
    body.loadUintBig(64); // query_id
    const amount = body.loadCoins();
    const from = body.loadMaybeAddress();
    body.loadMaybeAddress(); // response_address
    if (body.loadCoins() !== 0n) return null; // forward_ton_amount: the owner is notified
    const payload = body.remainingBits > 0 && body.loadBit() ? body.loadRef().beginParse() : body;
    return amount > 0n ? { amount, from, memo: commentOf(payload) } : null;
  } catch {
    return null; // the jetton wallet accepted it, so it parsed there; a body we cannot read is not guessed at
  }
}

/**
 * A `transfer_notification` counts only when its sender is the deposit address's own jetton wallet
 * for an allow-listed master: the registered token account `<jetton wallet>:<master>` (the key
 * `tokenAccounts` gave it; the caller checks it). Anyone can send this op from a contract of their
 * own (the fake-jetton attack); only the wallet the master names is registered.
 */
function notifiedJettons(body: Slice): JettonCredit | null {
  try {
    body.loadUint(32);
    body.loadUintBig(64); // query_id
    const amount = body.loadCoins();
    const from = body.loadMaybeAddress();
    const payload = body.loadBit() ? body.loadRef().beginParse() : body;
    return amount > 0n ? { amount, from, memo: commentOf(payload) } : null;
  } catch {
    return null; // a malformed notification from our own jetton wallet cannot happen; never guess
  }
}
