import { type BaseError, toBaseUnits } from '@walletd/core';

// 2^256 − 1, the largest ceiling of any chain (amountCeiling), has 78 digits: a longer whole part
// cannot fit whatever the decimals.
const MAX_WHOLE_DIGITS = 78;

/**
 * An intent amount in base units, refused (400 invalid_amount) when it is not an exact positive
 * decimal of the asset. The digits are counted before any conversion, so a 5,000-digit amount
 * costs nothing; `tooLarge` is the caller's error naming the chain's ceiling, which the caller
 * then checks on what converted.
 */
export function intentAmount(text: string, decimals: number, tooLarge: () => BaseError): bigint {
  const whole = text.split('.')[0] ?? '';
  if (whole.replace(/^0+/, '').length > MAX_WHOLE_DIGITS) throw tooLarge();
  return toBaseUnits(text, decimals, { allowZero: false });
}
