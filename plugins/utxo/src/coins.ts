import { BaseError } from '@walletd/plugin-kit';
/**
 * Bitcoin Core prints amounts as JSON numbers in whole coins, sometimes in exponent form
 * (6.932e-05). This turns the number's text into base units exactly; a float never holds it.
 */
export function coinsToUnits(text: string, decimals = 8): bigint {
  const m = /^(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/.exec(text.trim());
  if (!m) throw new BaseError('input_invalid', `not a number: ${text}`);
  const digits = `${m[2]}${m[3] ?? ''}`;
  const scale = (m[3]?.length ?? 0) - Number(m[4] ?? 0) - decimals;
  let units: bigint;
  if (scale <= 0) units = BigInt(digits) * 10n ** BigInt(-scale);
  else {
    const div = 10n ** BigInt(scale);
    if (BigInt(digits) % div !== 0n) throw new BaseError('input_invalid', `${text} has more than ${decimals} decimal places`);
    units = BigInt(digits) / div;
  }
  return m[1] ? -units : units;
}
