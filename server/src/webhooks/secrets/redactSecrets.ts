import { standardWebhooksKey } from './signing';
import { base64Needles, hexNeedle, type Needle, textNeedle } from './secretEncodings';
import type { WebhookSecrets } from './webhookSecrets';

const MIN_SECRET = 4;
// A prefix shorter than this left at a cut is too little of a secret to matter (and too likely
// to be ordinary text to strip).
const MIN_TAIL = 4;

/** Redacts a text before it is stored; `cutAtEnd`: the text is the start of something longer. */
export type Redactor = (text: string, cutAtEnd?: boolean) => string;

/**
 * The credentials in one set of secrets, as text and as the bytes a receiver may hex- or
 * base64-encode. A Slack incoming-webhook URL is a credential in each of its parts: the whole
 * URL, its path alone, and the token (last path segment) alone. A `whsec_` signing secret's key
 * is the bytes its base64 part decodes to (what Standard Webhooks signs with).
 */
function credentials(s: Partial<WebhookSecrets>): { texts: string[]; bytes: Buffer[] } {
  const texts: string[] = [];
  const bytes: Buffer[] = [];
  if (s.signingSecret) {
    texts.push(s.signingSecret);
    bytes.push(Buffer.from(s.signingSecret, 'utf8'), standardWebhooksKey(s.signingSecret));
  }
  if (s.botToken) {
    const token = s.botToken.slice(s.botToken.indexOf(':') + 1);
    texts.push(s.botToken, token);
    bytes.push(Buffer.from(s.botToken, 'utf8'), Buffer.from(token, 'utf8'));
  }
  if (s.url) {
    texts.push(s.url, s.url.replace(/\/+$/, ''));
    try {
      const u = new URL(s.url);
      texts.push(`${u.host}${u.pathname}`, u.pathname, u.pathname.replace(/^\/+/, ''));
      const token = u.pathname.split('/').filter(Boolean).pop();
      if (token && token.length >= 8) {
        texts.push(token);
        bytes.push(Buffer.from(token, 'utf8'));
      }
    } catch {
      /* a stored URL always parses; nothing more to add otherwise */
    }
  }
  return { texts, bytes };
}

/**
 * Every needle for every secret the webhook has (current and `previous`): the secret as text in
 * any of the encodings of `textNeedle`, and its bytes in hex (either case) and base64 (both
 * alphabets, any alignment). Longest first: a whole URL becomes one marker, not one per part.
 */
export function secretNeedles(secrets: WebhookSecrets): Needle[] {
  const bySource = new Map<string, Needle>();
  const add = (n: Needle) => {
    if (n.units.length >= MIN_SECRET) bySource.set(n.units.join(''), n);
  };
  const sets: Partial<WebhookSecrets>[] = [secrets, ...(secrets.previous ?? [])];
  for (const set of sets) {
    const { texts, bytes } = credentials(set);
    // Reversed too: a receiver that echoes a secret backwards still shows it.
    for (const t of texts) {
      add(textNeedle(t));
      add(textNeedle(Array.from(t).reverse().join('')));
    }
    for (const b of new Map(bytes.map((x) => [x.toString('hex'), x])).values()) {
      add(hexNeedle(b));
      for (const n of base64Needles(b)) add(n);
    }
  }
  return [...bySource.values()].sort((a, b) => b.units.length - a.units.length);
}

// Between the chunks of a secret split across a body: whitespace and line breaks, as is or
// JSON-escaped (`\n`, `\r`, `\t`), and the quotes and commas of a JSON array or list of chunks.
const SPLIT = /\s|\\[nrt]|["',]/g;

/**
 * The secret split across the body: the text without the separators above (SPLIT) is searched
 * for every needle, and a match spanning a separator is redacted in the original from its first
 * character to its last, separators included. Matches without one are left to the main pass.
 */
function redactSplit(text: string, compiled: Compiled[]): string {
  const kept: number[] = [];
  let squeezed = '';
  let last = 0;
  for (const m of text.matchAll(SPLIT)) {
    for (let i = last; i < (m.index as number); i++) kept.push(i);
    squeezed += text.slice(last, m.index);
    last = (m.index as number) + m[0].length;
  }
  if (last === 0) return text;
  for (let i = last; i < text.length; i++) kept.push(i);
  squeezed += text.slice(last);
  const ranges: [number, number][] = [];
  const lower = squeezed.toLowerCase();
  for (const c of compiled) {
    if (c.anchor !== null && !lower.includes(c.anchor)) continue;
    for (const m of squeezed.matchAll(c.anywhere)) {
      if (m[0].length === 0) continue;
      const from = kept[m.index as number] as number;
      const to = (kept[(m.index as number) + m[0].length - 1] as number) + 1;
      if (to - from > m[0].length) ranges.push([from, to]);
    }
  }
  if (!ranges.length) return text;
  ranges.sort((a, b) => a[0] - b[0]);
  let out = '';
  let at = 0;
  for (const [from, to] of ranges) {
    if (to <= at) continue;
    out += `${text.slice(at, Math.max(at, from))}[redacted]`;
    at = to;
  }
  return out + text.slice(at);
}

// The longest text one character of a secret can become (four `%25XX`: percent-encoded twice).
const MAX_UNIT_TEXT = 20;

interface Compiled {
  anchor: string | null;
  caseless: boolean;
  anywhere: RegExp;
  /** Any prefix of at least MIN_TAIL characters of the secret, then the end of the text. */
  atEnd: RegExp | null;
  /** How far from the end such a prefix can start. */
  tailWindow: number;
}

function compile(n: Needle): Compiled {
  // `(?:unit|END)`: once the text has ended every remaining unit matches the end, so this is "a
  // prefix of the needle, then the end" without nesting one group per character. The end may
  // come inside one character's encoding (`%2`, `\u00`): up to a unit's text less one is allowed.
  const end = `[%\\\\&#0-9A-Za-z]{0,${MAX_UNIT_TEXT - 1}}$`;
  const tail = `${n.units.slice(0, MIN_TAIL).join('')}${n.units
    .slice(MIN_TAIL, -1)
    .map((u) => `(?:${u}|${end})`)
    .join('')}${end}`;
  // Every needle ignores case: a secret upper- or lower-cased by a receiver is still its secret
  // (for a random secret a match in another case by chance is out of reach).
  return {
    anchor: n.anchor === null ? null : n.anchor.toLowerCase(),
    caseless: true,
    anywhere: new RegExp(n.units.join(''), 'gi'),
    atEnd: n.units.length > MIN_TAIL ? new RegExp(tail, 'i') : null,
    tailWindow: n.units.length * MAX_UNIT_TEXT,
  };
}

/**
 * Compiles a webhook's needles once per set of secrets (the dispatcher keeps one redactor per
 * webhook version), not per attempt. A text is searched only for the needles whose anchor it
 * contains (one `indexOf` each), so a body without a secret costs about one scan per needle.
 * `cutAtEnd`: a secret may start at the very end of the text; a trailing prefix of at least
 * MIN_TAIL characters of one is redacted too.
 */
export function redactorFor(secrets: WebhookSecrets): Redactor {
  const compiled = secretNeedles(secrets).map(compile);
  return (text, cutAtEnd = false) => {
    // Most receivers answer with an empty or tiny body: nothing to look for.
    if (text.length < MIN_TAIL) return text;
    let out = redactSplit(text, compiled);
    let lower: string | undefined;
    for (const c of compiled) {
      if (c.anchor !== null) {
        if (c.caseless && lower === undefined) lower = out.toLowerCase();
        if (!(c.caseless ? (lower as string) : out).includes(c.anchor)) continue;
      }
      const replaced = out.replace(c.anywhere, '[redacted]');
      if (replaced !== out) {
        out = replaced;
        lower = undefined;
      }
    }
    if (!cutAtEnd) return out;
    // The earliest start of any secret's beginning left at the end.
    let cut = out.length;
    for (const c of compiled) {
      if (!c.atEnd) continue;
      const from = Math.max(0, out.length - c.tailWindow);
      const m = c.atEnd.exec(out.slice(from));
      if (m && from + m.index < cut) cut = from + m.index;
    }
    return cut < out.length ? `${out.slice(0, cut)}[redacted]` : out;
  };
}
