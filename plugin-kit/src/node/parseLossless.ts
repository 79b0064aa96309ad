/**
 * JSON.parse, except that a number a double would not hold exactly — one with a fraction or an
 * exponent, or an integer beyond 2^53 — arrives as its decimal text (a string): node amounts
 * (Bitcoin Core prints coins as 0.00012345) never pass through a float. Safe integers (heights,
 * confirmations, vouts) stay numbers. Strings are skipped whole, so digits inside them are never
 * touched.
 */
export function parseLossless(text: string): unknown {
  let out = '';
  let copied = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      i++;
      for (;;) {
        const quote = text.indexOf('"', i);
        if (quote < 0) return JSON.parse(text); // unterminated: JSON.parse names the error
        let backslashes = 0;
        for (let k = quote - 1; k >= i && text.charCodeAt(k) === 92; k--) backslashes++;
        i = quote + 1;
        if (backslashes % 2 === 0) break;
      }
      continue;
    }
    if (c === 45 /* - */ || (c >= 48 && c <= 57)) {
      let j = i + 1;
      while (j < n && isNumberChar(text.charCodeAt(j))) j++;
      const token = text.slice(i, j);
      if (!/^-?[0-9]+$/.test(token) || !Number.isSafeInteger(Number(token))) {
        out += `${text.slice(copied, i)}"${token}"`;
        copied = j;
      }
      i = j;
      continue;
    }
    i++;
  }
  return JSON.parse(copied === 0 ? text : out + text.slice(copied));
}

const isNumberChar = (c: number) => (c >= 48 && c <= 57) || c === 46 || c === 101 || c === 69 || c === 43 || c === 45;
