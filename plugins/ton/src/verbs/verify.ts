import { Address, Cell, type Message, type Transaction, loadTransaction } from '@ton/core';
import type { UnsignedWithdrawal, WithdrawalVerdict } from '@walletd/plugin-kit';
import { OP_EXCESSES } from '../detect';
import { type TonPayload, VALID_FOR_SECONDS, VALID_UNTIL_SKEW_SECONDS, inMessageHash, payloadOf } from '../payload';
import { paysIntent } from '../paysIntent';
import { seqnoOf } from '../seqnoOf';
import type { RawTransactionItem, TonReader } from '../reader';

export async function verifyTonWithdrawal(unsigned: UnsignedWithdrawal, txHash: string, reader: TonReader): Promise<WithdrawalVerdict> {
  const p = payloadOf(unsigned);
  const source = Address.parseRaw(p.source);
  // Clock and seqno before the history: a message that lands after these reads is in it.
  const now = Math.floor(Date.now() / 1000);
  const nextSeqno = await reader.seqno(source);
  const found = await sourceTransaction(reader, source, txHash, p);
  if (found === 'unknown') return { status: 'pending', confirmations: 0 };
  if (!found) {
    // Not in the wallet's history since it could have landed, and its seqno taken by another
    // message the history shows: it can never land (as an EVM nonce taken by another transaction).
    // A seqno past ours with no such message in the history is a history that lags the state (a
    // block executed but not yet listed, another liteserver): ours may be the one that took it, so
    // it stays pending (rejecting would release funds that may have moved).
    if (nextSeqno > p.seqno) {
      if (found === null && (await takenByAnother(reader, source, p)))
        return { status: 'rejected', confirmations: 0, reason: 'mempool_dropped' };
      return { status: 'pending', confirmations: 0 };
    }
    // The wallet refuses the message after valid_until: once the clock is past it (with a margin), never.
    if (now > p.validUntil + 30) return { status: 'rejected', confirmations: 0, reason: 'expired' };
    return { status: 'missing', confirmations: 0 };
  }
  const d = found.description;
  const out = [...found.outMessages.values()].find((m) => m.info.type === 'internal');
  const fwd = out && out.info.type === 'internal' ? out.info.forwardFee : 0n;
  let fee = found.totalFees.coins + fwd;
  const blockNumber = await reader.head();
  const onChain = { txHash: found.hash().toString('hex') };
  // Another send of the source's (another recipient, amount, memo or asset) is not this withdrawal.
  if (out && !paysIntent(unsigned, out)) return { status: 'pending', confirmations: 0 };
  const walletOk = d.type === 'generic' && d.computePhase.type === 'vm' && d.computePhase.success && d.actionPhase?.success === true;
  if (!walletOk || !out || out.info.type !== 'internal')
    return { status: 'rejected', confirmations: 1, fee, blockNumber, reason: 'failed_on_chain' };
  // Follow the message: the destination's transaction that received it.
  const next = await receivedBy(reader, out.info.dest, source, out.info.createdLt);
  if (!next) return { status: 'pending', confirmations: 0 };
  if (bounced(next)) {
    // The value comes back less what the bounce cost, in a transaction of the wallet's own: both are fee.
    const back = await returnedTo(reader, source, found.lt, out.info.dest, (m) => m.info.type === 'internal' && m.info.bounced);
    if (back === null) return { status: 'pending', confirmations: 0 };
    fee += out.info.value.coins - back.value + back.fees;
    return { status: 'rejected', confirmations: 1, fee, blockNumber, reason: 'failed_on_chain', ...onChain };
  }
  if (p.jetton) {
    // Our jetton wallet sent internal_transfer to the recipient's; the excess comes back to the wallet.
    const hop = [...next.outMessages.values()].find((m) => m.info.type === 'internal');
    if (!hop || hop.info.type !== 'internal') return { status: 'rejected', confirmations: 1, fee, blockNumber, reason: 'failed_on_chain' };
    const credited = await receivedBy(reader, hop.info.dest, out.info.dest, hop.info.createdLt);
    if (!credited) return { status: 'pending', confirmations: 0 };
    if (bounced(credited)) return { status: 'rejected', confirmations: 1, fee, blockNumber, reason: 'failed_on_chain', ...onChain };
    const excess = await returnedTo(reader, source, found.lt, hop.info.dest, (m) => {
      const body = m.body.beginParse();
      return body.remainingBits >= 32 && body.loadUint(32) === OP_EXCESSES;
    });
    if (excess === null) return { status: 'pending', confirmations: 0 };
    // What the wallet lost beyond its own transaction: the attached TON the jetton wallets kept, and
    // the gas of taking the excess back.
    fee += BigInt(p.jetton.attached) - excess.value + excess.fees;
  }
  return { status: 'confirmed', confirmations: 1, fee, blockNumber, ...onChain };
}

/** Pages of the source's history (32 transactions each) read back at most, looking for a withdrawal's. */
const HISTORY_PAGES = 20;
const PAGE = 32;

/**
 * An account's transactions, newest first, with the item each came from, page by page (toncenter's
 * lt + hash paging), at most HISTORY_PAGES pages. `complete` after the loop: the whole history was
 * read (false: the page budget ran out first).
 */
async function* history(reader: TonReader, account: Address, state = { complete: false }) {
  let from: RawTransactionItem['transaction_id'] | undefined;
  for (let page = 0; page < HISTORY_PAGES; page++) {
    const items = await reader.transactions(account, PAGE, from);
    // A page that starts at `from` repeats it.
    for (const item of from ? items.slice(1) : items) yield { item, tx: loadTransaction(Cell.fromBase64(item.data).beginParse()) };
    const last = items[items.length - 1];
    if (items.length < PAGE || !last) {
      state.complete = true;
      return;
    }
    from = last.transaction_id;
  }
}

/**
 * The source wallet's transaction for the message (its inbound external message's hash, or once
 * recorded the transaction's own hash), searched back to the earliest moment it could have landed
 * (valid_until less the validity the service allows and the skew): absence there is proof it did
 * not land. A busy wallet's newest page is not enough: a deposit burst after the withdrawal pushed
 * it out of the 32 newest, and the withdrawal read as expired while it had paid. 'unknown': that
 * moment is further back than HISTORY_PAGES pages.
 */
async function sourceTransaction(
  reader: TonReader,
  source: Address,
  txHash: string,
  p: TonPayload,
): Promise<Transaction | null | 'unknown'> {
  const earliest = p.validUntil - VALID_FOR_SECONDS - VALID_UNTIL_SKEW_SECONDS;
  const read = { complete: false };
  for await (const { item, tx } of history(reader, source, read)) {
    if (inMessageHash(tx) === txHash || tx.hash().toString('hex') === txHash) return tx;
    if (item.utime < earliest) return null;
  }
  return read.complete ? null : 'unknown';
}

/** Whether the history since the message could have landed holds another message with its seqno. */
async function takenByAnother(reader: TonReader, source: Address, p: TonPayload): Promise<boolean> {
  const earliest = p.validUntil - VALID_FOR_SECONDS - VALID_UNTIL_SKEW_SECONDS;
  for await (const { item, tx } of history(reader, source)) {
    if (seqnoOf(tx) === p.seqno) return true;
    if (item.utime < earliest) return false;
  }
  return false;
}

/**
 * The receiver failed and sent the value back (its bounce phase ran). An undeployed wallet that
 * took a non-bounceable transfer aborts too, but keeps the value: that transfer is delivered.
 */
const bounced = (tx: Transaction): boolean => tx.description.type === 'generic' && tx.description.bouncePhase?.type === 'ok';

async function receivedBy(reader: TonReader, account: Address, from: Address, createdLt: bigint): Promise<Transaction | null> {
  // Back to the message's creation: a busy recipient (an exchange) may have had many since.
  for await (const { tx } of history(reader, account)) {
    const m = tx.inMessage;
    if (m?.info.type === 'internal' && m.info.src.equals(from) && m.info.createdLt === createdLt) return tx;
    if (tx.lt < createdLt) return null;
  }
  return null;
}

/**
 * The first message `wallet` received from `sender` after `afterLt` that `isIt` accepts (the
 * `excesses` of a jetton send, or a bounced payment coming back; another withdrawal's, or anyone's,
 * is not this one's), with the fees of the transaction that took it; null while it has not arrived.
 */
async function returnedTo(
  reader: TonReader,
  wallet: Address,
  afterLt: bigint,
  sender: Address,
  isIt: (m: Message) => boolean,
): Promise<{ value: bigint; fees: bigint } | null> {
  let first: { value: bigint; fees: bigint } | null = null;
  for await (const { tx } of history(reader, wallet)) {
    if (tx.lt <= afterLt) break;
    const m = tx.inMessage;
    if (m?.info.type !== 'internal' || !m.info.src.equals(sender)) continue;
    // Newest first: the last match read is the first to arrive.
    if (isIt(m)) first = { value: m.info.value.coins, fees: tx.totalFees.coins };
  }
  return first;
}
