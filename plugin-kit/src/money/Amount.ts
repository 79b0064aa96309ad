import { BaseError } from '../errors';

/**
 * Exact conversion between display-unit decimal strings (API, events) and base-unit bigints
 * (code, database). No JavaScript number ever holds an amount.
 */
const DECIMAL = /^(0|[1-9][0-9]*)(?:\.([0-9]+))?$/;

export interface ParseOptions {
  /** Accept a leading minus sign (balances and deltas may be negative; requests never are). */
  allowNegative?: boolean;
  /** Accept zero (a withdrawal of zero is meaningless). Defaults to true. */
  allowZero?: boolean;
}

/** Decimal string in display units -> bigint base units. Refuses anything not exactly representable. */
export function toBaseUnits(value: string, decimals: number, options: ParseOptions = {}): bigint {
  assertDecimals(decimals);
  if (typeof value !== 'string') {
    throw new BaseError('invalid_amount', 'amount must be a decimal string, not a number');
  }
  let text = value;
  let negative = false;
  if (text.startsWith('-')) {
    if (!options.allowNegative) throw new BaseError('invalid_amount', 'amount must not be negative');
    negative = true;
    text = text.slice(1);
  }
  const m = DECIMAL.exec(text);
  if (!m) throw new BaseError('invalid_amount', `amount "${value}" is not a plain decimal number`);
  const whole = m[1] as string;
  const frac = m[2] ?? '';
  if (frac.length > decimals) {
    // Trailing zeros beyond the precision are harmless; anything else would be silently rounded.
    if (/[^0]/.test(frac.slice(decimals))) {
      throw new BaseError('invalid_amount', `amount "${value}" has more than ${decimals} decimal places`);
    }
  }
  const fracPadded = (frac.slice(0, decimals) + '0'.repeat(decimals)).slice(0, decimals);
  const units = BigInt(whole + fracPadded);
  if (units === 0n && options.allowZero === false) {
    throw new BaseError('invalid_amount', 'amount must be greater than zero');
  }
  return negative ? -units : units;
}

/** bigint base units -> shortest exact decimal string in display units ("1.5", "0", "0.000001"). */
export function fromBaseUnits(units: bigint, decimals: number): string {
  assertDecimals(decimals);
  const negative = units < 0n;
  const magnitude = negative ? -units : units;
  // Safe integers print through Number (exact below 2^53, cheaper than bigint's toString): every
  // bitcoin amount, and most others; a detector formats each output of every matched transaction.
  let digits = magnitude <= MAX_SAFE ? String(Number(magnitude)) : magnitude.toString();
  if (digits.length <= decimals) digits = digits.padStart(decimals + 1, '0');
  const cut = digits.length - decimals;
  let end = digits.length;
  while (end > cut && digits.charCodeAt(end - 1) === 48 /* '0' */) end--;
  const text = end > cut ? `${digits.slice(0, cut)}.${digits.slice(cut, end)}` : digits.slice(0, cut);
  return negative && text !== '0' ? `-${text}` : text;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Parses a base-unit integer string as stored in a numeric(78,0) column. */
export function parseBaseUnits(value: string | number | bigint): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') {
    // Only reachable through a programming error; refuse rather than lose precision.
    if (!Number.isSafeInteger(value)) throw new BaseError('input_invalid', 'unsafe number passed as base units');
    return BigInt(value);
  }
  if (!/^-?[0-9]+$/.test(value)) throw new BaseError('input_invalid', `not an integer base-unit amount: ${value}`);
  return BigInt(value);
}

function assertDecimals(decimals: number): void {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 77) {
    throw new BaseError('input_invalid', `invalid decimals: ${decimals}`);
  }
}
