/**
 * A needle: one regular-expression source per character of a secret (a "unit"), each matching
 * that character in any of the encodings a receiver may echo it in. Per character rather than
 * per whole string, so encoders that differ in which characters they escape (encodeURI vs
 * encodeURIComponent vs form encoding; JSON with or without `\/`, ASCII-only JSON) are all
 * covered by one needle, and a prefix of a needle is a prefix of the secret.
 * `anchor`: text that every match contains (compared lower-cased when `caseless`), so a body
 * without it is not searched for this needle; null when no character is always itself.
 */
export interface Needle {
  units: string[];
  anchor: string | null;
  caseless: boolean;
}

// An anchor shorter than this would be found in ordinary text too often to save a search.
const MIN_ANCHOR = 4;

/** The longest run of characters that are matched only as themselves. */
function longestRun(chars: string[], literal: (c: string) => boolean): string | null {
  let best = '';
  let run = '';
  for (const c of chars) {
    run = literal(c) ? run + c : '';
    if (run.length > best.length) best = run;
  }
  return best.length >= MIN_ANCHOR ? best : null;
}

const ALNUM = /^[A-Za-z0-9]$/;

const escapeRe = (s: string): string => s.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');

/** Hex digits in either case: percent-encoding, `\uXXXX` and hex dumps are case-insensitive. */
const hexAnyCase = (hex: string): string => hex.replace(/[a-fA-F]/g, (d) => `[${d.toLowerCase()}${d.toUpperCase()}]`);

const hex2 = (b: number) => b.toString(16).padStart(2, '0');

const percent = (ch: string, twice = false): string =>
  [...Buffer.from(ch, 'utf8')].map((b) => `%${twice ? '25' : ''}${hexAnyCase(hex2(b))}`).join('');

const JSON_SHORT: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '/': '\\/',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

const HTML: Record<string, string[]> = {
  '"': ['&quot;'],
  '&': ['&amp;'],
  "'": ['&apos;'],
  '<': ['&lt;'],
  '>': ['&gt;'],
};

/**
 * One character (a code point) of a secret as text. Letters and digits as themselves only: no
 * JSON, URL, form or HTML encoder escapes them. Any other: itself; JSON-escaped (`\"`, `\\`, `\/`, the
 * short escapes, `\uXXXX` in either case, an astral character as its surrogate pair, as JSON
 * encoders that escape everything outside ASCII write it); percent-encoded (its UTF-8 bytes,
 * either case); `+` for a space (form encoding); the HTML character references of `"&'<>`.
 */
function textUnit(ch: string): string {
  if (ALNUM.test(ch)) return ch;
  const alts = new Set<string>([escapeRe(ch)]);
  const short = JSON_SHORT[ch];
  if (short) alts.add(escapeRe(short));
  let u = '';
  for (let i = 0; i < ch.length; i++) u += `\\\\u${hexAnyCase(ch.charCodeAt(i).toString(16).padStart(4, '0'))}`;
  alts.add(u);
  alts.add(percent(ch));
  alts.add(percent(ch, true)); // percent-encoded twice: `%` itself as `%25`
  if (ch === ' ') alts.add('\\+');
  const cp = ch.codePointAt(0) as number;
  for (const named of HTML[ch] ?? []) {
    alts.add(escapeRe(named));
    alts.add(`&#0*${cp};`);
    alts.add(`&#[xX]0*${hexAnyCase(cp.toString(16))};`);
  }
  // The literal last: `%` must not match just the start of `%25` when the secret ends with it.
  return `(?:${[...alts].slice(1).concat(escapeRe(ch)).join('|')})`;
}

/** A secret as text, in every encoding above, character by character. */
export function textNeedle(secret: string): Needle {
  const chars = Array.from(secret);
  return { units: chars.map(textUnit), anchor: longestRun(chars, (c) => ALNUM.test(c)), caseless: false };
}

/** Bytes as hex, in either case (a key is as usable in capitals). */
export function hexNeedle(bytes: Buffer): Needle {
  const hex = bytes.toString('hex');
  return { units: Array.from(hex, hexAnyCase), anchor: hex.length >= MIN_ANCHOR ? hex : null, caseless: true };
}

/**
 * A base64 character in both alphabets: standard (`+`, `/`) and URL-safe (`-`, `_`); the standard
 * ones also percent-encoded, JSON-escaped (`\/`), and `+` read back as a space by a form decoder.
 */
function base64Unit(c: string): string {
  if (c === '+') return '(?:\\+|-|%2[bB]|%252[bB]| )';
  if (c === '/') return '(?:\\/|_|\\\\\\/|%2[fF]|%252[fF])';
  return c;
}

const PAD = '(?:=|%3[dD]|%253[dD])?';

/**
 * Bytes in base64, standard and URL-safe, with or without padding. Encoded alone (a `whsec_`
 * secret's base64 part, its key in base64url): every character. Inside longer encoded data,
 * wherever they start (a Basic credential `user:secret`): for each of the three byte alignments,
 * the characters that carry only these bytes; the edge characters that mix in neighbouring bits
 * (at most 4 bits of the secret each) are left out.
 */
export function base64Needles(bytes: Buffer): Needle[] {
  const needle = (chars: string[], pad = 0): Needle => ({
    units: [...chars.map(base64Unit), ...Array<string>(pad).fill(PAD)],
    anchor: longestRun(chars, (c) => ALNUM.test(c)),
    caseless: false,
  });
  const alone = bytes.toString('base64').replace(/=+$/, '');
  const needles = [needle(Array.from(alone), (3 - (bytes.length % 3)) % 3)];
  for (let k = 0; k < 3; k++) {
    const encoded = Buffer.concat([Buffer.alloc(k), bytes])
      .toString('base64')
      .replace(/=+$/, '');
    // k leading bytes fill ceil(8k/6) characters; a trailing character mixes in the next bytes.
    const start = Math.ceil((8 * k) / 6);
    const end = (k + bytes.length) % 3 === 0 ? encoded.length : encoded.length - 1;
    if (k > 0 || end < encoded.length) needles.push(needle(Array.from(encoded.slice(start, end))));
  }
  return needles;
}
