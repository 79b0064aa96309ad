/**
 * `JSON.parse(new TextDecoder().decode(bytes))`, the same value or the same error, without ever
 * making one string of a large document.
 *
 * Why: V8 puts a string over 128 KiB in its large-object space, fresh pages every time, and on
 * this project's VMs the page faults of filling them cost more than the parse: decoding a 360 KB
 * EVM block (400 Transfer logs, receipts and traces) took 2-3 ms in the detect worker against
 * under 1 ms for `JSON.parse` of it (issue 41's follower bench). Here a large array or object is
 * cut at its own elements (members) into runs of at most `PIECE_BYTES`, each decoded and parsed
 * by `JSON.parse` as `[…]` (`{…}`) and joined; an element larger than that is cut the same way.
 * Pieces are small strings in the young generation.
 *
 * Same answer by construction: the cuts are only at separators this scanner checks as strictly as
 * JSON does (whitespace, `,`, `:`, the closing bracket), every byte between them goes through
 * `JSON.parse`, and a cut falls on an ASCII byte outside any string, so no UTF-8 sequence is split
 * (an invalid one decodes to U+FFFD the same way whole or cut). Member order and duplicate keys
 * come out as `JSON.parse` makes them (a later duplicate keeps the first one's place, `__proto__`
 * is an own property). Anything the scanner does not expect, invalid JSON included, falls back to
 * the whole decode and parse, which gives the original value or throws the original error.
 */
const decoder = new TextDecoder();

/** At most this many bytes decoded at once: under V8's large-object size even as a two-byte string. */
export const PIECE_BYTES = 32 * 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/** JSON's four whitespace bytes. */
const isSpace = (c: number | undefined) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** Thrown inside only: the document is not what the cutter expects, parse it whole instead. */
class Uncut {}
const UNCUT = new Uncut();

function skipSpace(b: Uint8Array, i: number, end: number): number {
  while (i < end && isSpace(b[i])) i++;
  return i;
}

/** The end (exclusive) of the string whose opening quote is at `i`. */
function stringEnd(b: Uint8Array, i: number, end: number): number {
  for (let j = i + 1; j < end; j++) {
    const c = b[j];
    if (c === QUOTE) return j + 1;
    // The escaped byte, whatever it is, cannot end the string.
    if (c === BACKSLASH) j++;
  }
  throw UNCUT;
}

/**
 * Where each container (array or object) of `b[start..end)` closes: opening index → closing
 * index, from one pass over the bytes. Why: the cutter needs the end of a large value before it
 * cuts it, then the ends of its elements, and so on down; scanning for each of them read the bytes
 * of a value nested n deep n times (an EVM answer's logs sit 5 deep: 5.8 ms of a 400-log block's
 * 8 ms in the detect thread, issue 41's follower bench profile). Containers under `MIN_NOTED`
 * bytes are not noted (most of a block's, a log's topics): `valueEnd` scans those few bytes again.
 * The brackets are only counted here, not matched by kind: what is between them is checked by
 * `JSON.parse`, as before. Unbalanced brackets or an unterminated string: UNCUT.
 */
const MIN_NOTED = 256;
/**
 * The closing quote of the string opened at `i`, found by `indexOf` (memchr: most of a node's
 * answer is long hex strings) and taken when an even run of backslashes precedes it (an odd run
 * escapes it: the run's last backslash is unpaired).
 */
function closingQuote(b: Uint8Array, i: number, end: number): number {
  let q = i;
  for (;;) {
    q = b.indexOf(QUOTE, q + 1);
    if (q < 0 || q >= end) throw UNCUT;
    let k = q - 1;
    while (b[k] === BACKSLASH) k--;
    if ((q - 1 - k) % 2 === 0) return q;
  }
}
function containerEnds(b: Uint8Array, start: number, end: number): Map<number, number> {
  const ends = new Map<number, number>();
  const open: number[] = [];
  for (let j = start; j < end; j++) {
    const c = b[j];
    if (c === QUOTE) j = closingQuote(b, j, end);
    else if (c === OPEN_ARRAY || c === OPEN_OBJECT) open.push(j);
    else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      const at = open.pop();
      if (at === undefined) throw UNCUT;
      if (j - at >= MIN_NOTED) ends.set(at, j);
    }
  }
  if (open.length > 0) throw UNCUT;
  return ends;
}

/**
 * The end (exclusive) of the value starting at `i`, found by brackets and quotes only: what is
 * inside is checked later by `JSON.parse`. A scalar runs to the next separator or space. A large
 * container's end is read from `ends` (containerEnds).
 */
function valueEnd(b: Uint8Array, i: number, end: number, ends: Map<number, number>): number {
  const first = b[i];
  if (first === QUOTE) return stringEnd(b, i, end);
  if (first === OPEN_ARRAY || first === OPEN_OBJECT) {
    const noted = ends.get(i);
    if (noted !== undefined) {
      if (noted >= end) throw UNCUT;
      return noted + 1;
    }
    let depth = 0;
    for (let j = i; j < end; j++) {
      const c = b[j];
      if (c === QUOTE) {
        for (j++; j < end; j++) {
          const d = b[j];
          if (d === QUOTE) break;
          if (d === BACKSLASH) j++;
        }
      } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) depth++;
      else if ((c === CLOSE_ARRAY || c === CLOSE_OBJECT) && --depth === 0) return j + 1;
    }
    throw UNCUT;
  }
  // A number, true, false or null (what else starts here fails in JSON.parse, then whole).
  if (first === 0x2d || (first !== undefined && first >= 0x30 && first <= 0x39) || first === 0x74 || first === 0x66 || first === 0x6e) {
    let j = i + 1;
    while (j < end) {
      const c = b[j];
      if (c === COMMA || c === CLOSE_ARRAY || c === CLOSE_OBJECT || isSpace(c)) break;
      j++;
    }
    return j;
  }
  throw UNCUT;
}

const text = (b: Uint8Array, start: number, end: number) => decoder.decode(b.subarray(start, end));

/** As JSON.parse sets a member: an own data property, `__proto__` included. */
function setMember(out: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true });
  else out[key] = value;
}

/** One value, `b[start]` its first byte and `end` just past its last. */
function parseValue(b: Uint8Array, start: number, end: number, ends: Map<number, number>): unknown {
  if (end - start <= PIECE_BYTES) return JSON.parse(text(b, start, end));
  if (b[start] === OPEN_ARRAY) return parseLarge(b, start, end, false, ends);
  if (b[start] === OPEN_OBJECT) return parseLarge(b, start, end, true, ends);
  // One large string or number: nothing to cut.
  return JSON.parse(text(b, start, end));
}

/**
 * A large array or object: runs of consecutive elements (members) up to `PIECE_BYTES` parsed
 * together, a larger one on its own by `parseValue`.
 */
function parseLarge(b: Uint8Array, start: number, end: number, object: boolean, ends: Map<number, number>): unknown {
  const close = object ? CLOSE_OBJECT : CLOSE_ARRAY;
  const array: unknown[] = [];
  const members: Record<string, unknown> = {};
  let runStart = -1;
  let runEnd = -1;
  const flush = () => {
    if (runStart < 0) return;
    const inner = text(b, runStart, runEnd);
    if (object) {
      const part = JSON.parse(`{${inner}}`) as Record<string, unknown>;
      for (const key of Object.keys(part)) setMember(members, key, part[key]);
    } else for (const v of JSON.parse(`[${inner}]`) as unknown[]) array.push(v);
    runStart = -1;
  };
  let i = skipSpace(b, start + 1, end);
  if (b[i] === close) {
    if (i !== end - 1) throw UNCUT;
    return object ? members : array;
  }
  for (;;) {
    // An element, or a member: its key, `:`, its value.
    let valueStart = i;
    if (object) {
      if (b[i] !== QUOTE) throw UNCUT;
      const keyEnd = stringEnd(b, i, end);
      const colon = skipSpace(b, keyEnd, end);
      if (b[colon] !== COLON) throw UNCUT;
      valueStart = skipSpace(b, colon + 1, end);
    }
    const valueStop = valueEnd(b, valueStart, end - 1, ends);
    if (valueStop - i > PIECE_BYTES) {
      flush();
      const value = parseValue(b, valueStart, valueStop, ends);
      if (object) setMember(members, JSON.parse(text(b, i, stringEnd(b, i, end))) as string, value);
      else array.push(value);
    } else {
      if (runStart >= 0 && valueStop - runStart > PIECE_BYTES) flush();
      if (runStart < 0) runStart = i;
      runEnd = valueStop;
    }
    i = skipSpace(b, valueStop, end);
    if (b[i] === COMMA) {
      i = skipSpace(b, i + 1, end);
      continue;
    }
    if (b[i] !== close || i !== end - 1) throw UNCUT;
    flush();
    return object ? members : array;
  }
}

export function parseJsonBytes(bytes: Uint8Array): unknown {
  const start = skipSpace(bytes, 0, bytes.length);
  let end = bytes.length;
  while (end > start && isSpace(bytes[end - 1])) end--;
  const first = bytes[start];
  if (end - start > PIECE_BYTES && (first === OPEN_ARRAY || first === OPEN_OBJECT)) {
    try {
      return parseValue(bytes, start, end, containerEnds(bytes, start, end));
    } catch {
      // Not cut: the whole document below, its value or its own error.
    }
  }
  return JSON.parse(decoder.decode(bytes));
}
