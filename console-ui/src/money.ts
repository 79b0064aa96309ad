/** Base units (an integer string) as an exact decimal string: string arithmetic, never a float. */
export function fromBaseUnits(units: string, decimals: number): string {
  if (!/^-?\d+$/.test(units)) return units;
  const negative = units.startsWith('-');
  const digits = (negative ? units.slice(1) : units).padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals).replace(/^0+(?=\d)/, '');
  const frac = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}

/**
 * Money as a person reads it (issue 47 §4): digits grouped in the browser's locale, at most
 * `SHOWN_DECIMALS` decimals, cut (never rounded: a shown balance is never more than the exact one)
 * and marked with "…" when digits were cut. The exact decimal string walletd sent stays in the
 * title (hover) and is what a copy of the figure puts on the clipboard.
 */
export const SHOWN_DECIMALS = 8;

/** The integer part grouped in threes with `separator`, the fraction after `point`, cut to `decimals` digits. */
export function shownAmount(exact: string, decimals = SHOWN_DECIMALS, separator = ',', point = '.'): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(exact);
  if (!m) return exact;
  const [, sign = '', whole = '0', fraction = ''] = m;
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, separator);
  const kept = fraction.slice(0, decimals).replace(/0+$/, '');
  const cut = /[1-9]/.test(fraction.slice(decimals));
  return `${sign}${grouped}${kept ? `${point}${kept}` : ''}${cut ? '…' : ''}`;
}

/** Decimal strings added exactly (per asset totals): scaled to the longest fraction, summed as bigint. */
export function addAmounts(values: readonly string[]): string {
  const scale = Math.max(0, ...values.map((v) => v.split('.')[1]?.length ?? 0));
  const sum = values.reduce((acc, v) => {
    const [w = '0', f = ''] = v.replace('-', '').split('.');
    const units = BigInt(w + f.padEnd(scale, '0'));
    return acc + (v.startsWith('-') ? -units : units);
  }, 0n);
  const negative = sum < 0n;
  const digits = (negative ? -sum : sum).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}
