import { BaseError } from '@walletd/plugin-kit';
/**
 * Issued-currency amounts are decimal strings in rippled's JSON ("9.980039920159681",
 * "1.5e-7"): up to 16 significant digits and an exponent. walletd counts a token in base units of
 * the decimals the operator configured for it. A value finer than one base unit cannot be
 * represented: the fraction below it is cut off (never rounded up: nothing is invented) and
 * `exact` says whether anything was cut.
 */
export function issuedValueToUnits(value: string, decimals: number): { units: bigint; exact: boolean } {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(value);
  if (!m) throw new BaseError('input_invalid', `not an issued-currency value: ${value}`);
  const [, sign, whole, fraction = '', exponentText = '0'] = m;
  const digits = `${whole}${fraction}`.replace(/^0+(?=\d)/, '');
  // value = digits × 10^(exponent − fraction.length); in base units: × 10^decimals.
  const shift = Number(exponentText) - fraction.length + decimals;
  let units: bigint;
  let exact = true;
  if (shift >= 0) units = BigInt(digits) * 10n ** BigInt(shift);
  else {
    const divisor = 10n ** BigInt(-shift);
    const n = BigInt(digits);
    units = n / divisor;
    exact = n % divisor === 0n;
  }
  return { units: sign === '-' ? -units : units, exact };
}

/** Base units back to the decimal string rippled accepts (no exponent, no trailing zeros). */
export function unitsToIssuedValue(units: bigint, decimals: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}
