import { BaseError, toBaseUnits } from '@walletd/core';

/** No chain holds more than a uint256 of base units (EVM balances are uint256; the others far less). */
export const MAX_BASE_UNITS = (1n << 256n) - 1n;
// 2^256 − 1 has 78 digits; a longer whole part cannot fit whatever the decimals.
const MAX_WHOLE_DIGITS = 78;

/**
 * An intent amount in base units, refused (400 invalid_amount) when it is not an exact positive
 * decimal of the asset or exceeds what any chain can hold: a 5,000-digit amount is a mistake to
 * name at once, not a request for approvers to look at. The digits are counted before any
 * conversion, so a huge string costs nothing. Chain-specific ceilings come on top of this.
 */
export function intentAmount(text: string, decimals: number, field: string): bigint {
  const whole = text.split('.')[0] ?? '';
  const tooBig = () => new BaseError('invalid_amount', `${field} is larger than any chain can hold (at most ${MAX_BASE_UNITS} base units)`);
  if (whole.replace(/^0+/, '').length > MAX_WHOLE_DIGITS) throw tooBig();
  const units = toBaseUnits(text, decimals, { allowZero: false });
  if (units > MAX_BASE_UNITS) throw tooBig();
  return units;
}
