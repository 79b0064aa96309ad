import { BaseError, type WithdrawalIntent } from '@walletd/plugin-kit';
import { issuedCurrencyKey } from './addresses';
import { TF_PARTIAL_PAYMENT } from './detect';
import { issuedValueToUnits, unitsToIssuedValue } from './issuedAmount';
import type { IssuedAmountJson } from './payload';
import { recipientOf } from './recipient';

/** The issued currency an intent pays (`<currency>.<issuer>`), or null for XRP. */
export function issuedOf(intent: WithdrawalIntent): { currency: string; issuer: string } | null {
  if (!intent.asset.contractAddress) return null;
  const key = issuedCurrencyKey(intent.asset.contractAddress);
  if (!key) throw new BaseError('unknown_asset', `${intent.asset.contractAddress} is not an issued currency`);
  const dot = key.lastIndexOf('.');
  return { currency: key.slice(0, dot), issuer: key.slice(dot + 1) };
}

export function memoText(tx: Record<string, unknown>): string | undefined {
  const memos = tx.Memos as { Memo: { MemoData?: string } }[] | undefined;
  if (!memos || memos.length === 0) return undefined;
  if (memos.length !== 1 || memos[0]?.Memo.MemoData === undefined) return '\u0000unreadable';
  return Buffer.from(memos[0].Memo.MemoData, 'hex').toString('utf8');
}

export function amountJson(intent: WithdrawalIntent, amount: bigint): string | IssuedAmountJson {
  const issued = issuedOf(intent);
  if (!issued) return amount.toString();
  return { currency: issued.currency, issuer: issued.issuer, value: unitsToIssuedValue(amount, intent.asset.decimals) };
}

/** Equal amounts: drops as strings, issued values as base units of the asset (the ledger may print "10" for "10.0"). */
export function sameAmount(intent: WithdrawalIntent, expected: bigint, actual: unknown): boolean {
  const issued = issuedOf(intent);
  if (!issued) return typeof actual === 'string' && /^\d+$/.test(actual) && BigInt(actual) === expected;
  if (typeof actual !== 'object' || actual === null) return false;
  const a = actual as IssuedAmountJson;
  if (issuedCurrencyKey(`${a.currency}.${a.issuer}`) !== `${issued.currency}.${issued.issuer}`) return false;
  const { units, exact } = issuedValueToUnits(a.value, intent.asset.decimals);
  return exact && units === expected;
}

/** The first way a Payment differs from the intent (signed elsewhere, or read back from the ledger). */
export function differenceFromIntent(intent: WithdrawalIntent, tx: Record<string, unknown>): string | null {
  const r = recipientOf(intent);
  if (tx.TransactionType !== 'Payment') return `it is a ${String(tx.TransactionType)}, not a Payment`;
  if (tx.Account !== intent.sources[0]) return `it is sent by ${String(tx.Account)}, not ${intent.sources[0]}`;
  if (tx.Destination !== r.account) return `it pays ${String(tx.Destination)}, not ${r.account}`;
  if (tx.DestinationTag !== r.tag) return `its destination tag is ${String(tx.DestinationTag ?? 'absent')}, not ${r.tag ?? 'absent'}`;
  if (!sameAmount(intent, r.amount, tx.Amount ?? tx.DeliverMax)) return 'it pays another amount or asset';
  if (((Number(tx.Flags ?? 0) >>> 0) & TF_PARTIAL_PAYMENT) !== 0) return 'it sets the partial-payment flag';
  for (const field of ['SendMax', 'DeliverMin', 'Paths'] as const)
    if (tx[field] !== undefined) return `it carries ${field} (a cross-currency payment)`;
  if (memoText(tx) !== r.memo) return 'its memo differs';
  return null;
}
