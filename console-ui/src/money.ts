/** Base units (an integer string) as an exact decimal string: string arithmetic, never a float. */
export function fromBaseUnits(units: string, decimals: number): string {
  if (!/^-?\d+$/.test(units)) return units;
  const negative = units.startsWith('-');
  const digits = (negative ? units.slice(1) : units).padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals).replace(/^0+(?=\d)/, '');
  const frac = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}
