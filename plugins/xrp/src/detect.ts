import type { DetectContext, DetectResult, DetectedTransfer } from '@walletd/plugin-kit';
import { canonicalCurrency } from './currency';
import { issuedValueToUnits } from './issuedAmount';
import { BaseError } from '@walletd/plugin-kit';

/**
 * The raw ledger the reader hands to a worker: the bytes of a rippled `ledger` result (a validated
 * ledger, `transactions` and `expand` true), API v1 (`metaData`, `Amount`, fields at the top level
 * of each entry) or API v2 (`tx_json`, `meta`, `DeliverMax`). Amounts in rippled's JSON are
 * strings (drops, or an issued value): a number where an amount belongs is refused, never read
 * through a double.
 */
type IssuedAmount = { currency: string; issuer: string; value: string };
type Amount = string | IssuedAmount | { mpt_issuance_id: string; value: string };

interface TxFields {
  TransactionType: string;
  Account: string;
  Destination?: string;
  DestinationTag?: number;
  Flags?: number;
  Amount?: Amount;
  DeliverMax?: Amount;
  hash?: string;
}

interface Meta {
  TransactionResult: string;
  delivered_amount?: Amount | 'unavailable';
  DeliveredAmount?: Amount;
}

type LedgerEntry = (TxFields & { metaData?: Meta; meta?: Meta }) | { tx_json: TxFields; meta: Meta; hash: string };

export interface LedgerResult {
  ledger_hash: string;
  ledger_index: number | string;
  validated?: boolean;
  ledger: { parent_hash: string; ledger_hash?: string; ledger_index?: number | string; transactions?: (LedgerEntry | string)[] };
}

/** `tfPartialPayment`: the sender allows delivering less than `Amount`. */
export const TF_PARTIAL_PAYMENT = 0x00020000;
const DROPS = /^\d{1,19}$/;
const decoder = new TextDecoder();

export function detect(raw: Uint8Array, ctx: DetectContext): DetectResult {
  const result = JSON.parse(decoder.decode(raw)) as LedgerResult;
  // Only a validated ledger is final; the reader never hands over another, this keeps it so.
  if (result.validated !== true) throw new BaseError('node_answer_invalid', `ledger ${result.ledger_index} is not validated`);
  const ledger = result.ledger;
  const block = { number: BigInt(result.ledger_index), hash: result.ledger_hash, parentHash: ledger.parent_hash };
  const transfers: DetectedTransfer[] = [];
  for (const entry of ledger.transactions ?? []) {
    if (typeof entry === 'string') throw new BaseError('node_answer_invalid', 'ledger transactions are not expanded');
    const tx: TxFields = 'tx_json' in entry ? entry.tx_json : entry;
    const meta = 'tx_json' in entry ? entry.meta : (entry.metaData ?? entry.meta);
    if (tx.TransactionType !== 'Payment' || meta?.TransactionResult !== 'tesSUCCESS' || !tx.Destination) continue;
    const tag = tx.DestinationTag;
    let toKey: string;
    if (tag !== undefined && ctx.watched.has(`${tx.Destination}:${tag}`)) toKey = `${tx.Destination}:${tag}`;
    else if (ctx.watched.has(tx.Destination)) toKey = tx.Destination;
    else continue;
    const credit = creditOf(tx, meta, ctx);
    if (!credit) continue;
    const hash = ('hash' in entry ? entry.hash : undefined) ?? tx.hash;
    if (typeof hash !== 'string') throw new BaseError('node_answer_invalid', 'a ledger transaction has no hash');
    transfers.push({
      txHash: hash,
      eventIndex: 0,
      from: tx.Account,
      // The wallet's account row: a payment from it to one of its tags is the wallet's own.
      fromKey: tx.Account,
      to: toKey,
      toKey,
      assetKey: credit.assetKey,
      amount: credit.amount,
      eventType: credit.eventType,
      extra: { destinationTag: tag ?? null },
    });
  }
  return { block, transfers };
}

/**
 * What the payment delivered: `meta.delivered_amount`, never `Amount`/`DeliverMax` (a partial
 * payment delivers less: crediting `Amount` is the partial-payment exploit). Ledgers before 2014
 * lack the field ("unavailable"): then only a payment without the partial flag delivered exactly
 * its `Amount`; a partial one credits nothing (its delivery cannot be known from the ledger JSON).
 */
export function deliveredOf(tx: Pick<TxFields, 'Flags' | 'Amount' | 'DeliverMax'>, meta: Meta): Amount | null {
  const delivered = meta.delivered_amount ?? meta.DeliveredAmount;
  if (delivered !== undefined && delivered !== 'unavailable') return delivered;
  if (((Number(tx.Flags ?? 0) >>> 0) & TF_PARTIAL_PAYMENT) !== 0) return null;
  return tx.DeliverMax ?? tx.Amount ?? null;
}

function creditOf(tx: TxFields, meta: Meta, ctx: DetectContext): { assetKey: string; amount: bigint; eventType: string } | null {
  const delivered = deliveredOf(tx, meta);
  if (delivered === null) return null;
  if (typeof delivered === 'string') {
    if (!DROPS.test(delivered)) return null;
    const amount = BigInt(delivered);
    return amount > 0n ? { assetKey: ctx.native.key, amount, eventType: 'xrp_payment' } : null;
  }
  if (typeof delivered !== 'object' || delivered === null || !('issuer' in delivered)) return null; // MPTs are not credited
  if (typeof delivered.value !== 'string' || typeof delivered.currency !== 'string') return null;
  const currency = canonicalCurrency(delivered.currency);
  const token = currency === null ? undefined : ctx.tokens.get(`${currency}.${delivered.issuer}`);
  if (!token) return null;
  const { units } = issuedValueToUnits(delivered.value, token.decimals);
  return units > 0n ? { assetKey: token.key, amount: units, eventType: 'issued_currency_payment' } : null;
}
