const STANDARD = /^[A-Za-z0-9?!@#$%^&*<>(){}[\]|]{3}$/;
const HEX40 = /^[0-9A-Fa-f]{40}$/;

/**
 * A currency code as rippled prints it in JSON: a standard 3-character code as is (never "XRP",
 * which is not an issued currency), anything else as 40 uppercase hex digits. A longer name
 * (`RLUSD`) is the ASCII bytes padded with zeros, as the XRP Ledger encodes it; a 40-hex code that
 * is a standard code in disguise prints as its 3 letters. Null when it is not a currency code.
 */
export function canonicalCurrency(code: string): string | null {
  if (STANDARD.test(code)) return code === 'XRP' ? null : code;
  if (HEX40.test(code)) {
    const bytes = Buffer.from(code, 'hex');
    if (bytes[0] === 0) {
      // The standard form: 12 zero bytes, 3 ASCII characters, 5 zero bytes.
      const standard = bytes.subarray(12, 15).toString('latin1');
      const zeros = bytes.subarray(0, 12).every((b) => b === 0) && bytes.subarray(15).every((b) => b === 0);
      return zeros && STANDARD.test(standard) && standard !== 'XRP' ? standard : null;
    }
    return code.toUpperCase();
  }
  if (/^[\x21-\x7e]{4,20}$/.test(code)) return Buffer.from(code, 'latin1').toString('hex').toUpperCase().padEnd(40, '0');
  return null;
}
