import { createHash } from 'node:crypto';

/**
 * The watched-address set shared by the main thread (writer) and the detect workers (readers):
 * an open-addressing hash table of 20-byte slots in a SharedArrayBuffer, so a task carries a
 * reference instead of a copy of a million addresses. Slot forms, cheapest first:
 * - an EVM match key ("0x" + 40 hex): its own 20 bytes (keccak-derived, already a good hash);
 * - a key in plain lowercase hex of at least 20 bytes (a UTXO output script): its last 20 bytes with
 *   the bytes before them folded in by XOR. Scripts end in (or are mostly) a 20- or 32-byte hash,
 *   so this is a good hash too, and `hasBytes` computes it from the raw script with no hex at all;
 * - anything else (a base58 key): the first 20 bytes of its SHA-256.
 * Two keys may share a slot (P2PKH and P2WPKH of one public key hash): a lookup can say "maybe",
 * never "no" for a watched key, and the store matches exact keys before recording anything. Growing allocates a new buffer; tasks sent after that
 * carry the new one. Only the main thread writes.
 */
const SLOT = 20;
/** A slot in 32-bit words: slots start at multiples of 20 bytes, so they are 4-byte aligned. */
const WORDS = SLOT / 4;

/**
 * A blocked Bloom filter after the slots (issue 17, measured: the bitcoin detector asks once per
 * output, ~8 000 times a block, and each probe of a 5 MB table of 100k addresses was a cache miss,
 * over half of detect's time). One 32-bit word per key with two bits set, taken from key words 1
 * and 2 (the table's index uses bytes 0-3): a quarter of a byte per slot, so 256 KB for 100k
 * addresses stays in cache, and ~1 % of unwatched outputs go on to the table.
 */
const filterWords = (capacity: number): number => Math.max(16, capacity >> 2);
const filterOffset = (capacity: number): number => capacity * SLOT;
const filterBits = (k2: number): number => (1 << (k2 & 31)) | (1 << ((k2 >>> 5) & 31));
/** Key bytes `i..i+3` of `fold()` for a script of 20 + `tail` bytes (`tail` ≤ 20), as `le32` reads them. */
function foldedWord(bytes: Uint8Array, start: number, tail: number, i: number): number {
  let w = 0;
  for (let b = 3; b >= 0; b--) {
    const j = i + b;
    const v = j < tail ? (bytes[start + tail + j] as number) ^ (bytes[start + j] as number) : (bytes[start + tail + j] as number);
    w = (w << 8) | v;
  }
  return w >>> 0;
}

/** Four bytes as a little-endian word, the same on every platform (the filter is indexed by it). */
const le32 = (b: Uint8Array, at: number): number =>
  ((b[at] as number) | ((b[at + 1] as number) << 8) | ((b[at + 2] as number) << 16) | ((b[at + 3] as number) << 24)) >>> 0;

/**
 * Key bytes `i..i+3` of an EVM match key ("0x" + 40 hex) as `le32` reads them, straight from its
 * hex; a character that is not lowercase hex gives a word the filter may or may not hold, and
 * `hexToBytes` refuses the key after it.
 */
function hexWord(hex: string, i: number): number {
  let w = 0;
  for (let b = 3; b >= 0; b--) {
    const at = 2 + (i + b) * 2;
    w = (w << 8) | (((nibble(hex.charCodeAt(at)) << 4) | nibble(hex.charCodeAt(at + 1))) & 0xff);
  }
  return w >>> 0;
}

export interface SharedAddressTable {
  buffer: SharedArrayBuffer;
  capacity: number;
}

function hexToBytes(hex: string, out: Uint8Array): boolean {
  // The EVM match form, "0x" + 40 lowercase hex characters, is used as is; other forms are folded or digested.
  if (hex.length !== 42 || hex.charCodeAt(0) !== 48 || hex.charCodeAt(1) !== 120) return foldHex(hex, out) || digest(hex, out);
  for (let i = 0; i < SLOT; i++) {
    const hi = nibble(hex.charCodeAt(2 + i * 2));
    const lo = nibble(hex.charCodeAt(3 + i * 2));
    if (hi < 0 || lo < 0) return false;
    out[i] = (hi << 4) | lo;
  }
  return true;
}

/** The slot of raw bytes of at least 20 (`bytes[start..end)`): the last 20, with the leading ones XOR-folded in. */
function fold(bytes: Uint8Array, out: Uint8Array, start = 0, end = bytes.length): boolean {
  const n = end - start;
  if (n < SLOT) return false;
  const tail = n - SLOT;
  for (let i = 0; i < SLOT; i++) out[i] = bytes[start + tail + i] as number;
  for (let i = 0; i < tail; i++) out[i % SLOT] = (out[i % SLOT] as number) ^ (bytes[start + i] as number);
  return true;
}

function foldHex(hex: string, out: Uint8Array): boolean {
  if (hex.length < SLOT * 2 || hex.length % 2 !== 0) return false;
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) {
    const hi = nibble(hex.charCodeAt(i * 2));
    const lo = nibble(hex.charCodeAt(i * 2 + 1));
    if (hi < 0 || lo < 0) return false;
    bytes[i] = (hi << 4) | lo;
  }
  return fold(bytes, out);
}

function digest(key: string, out: Uint8Array): boolean {
  if (key.length === 0) return false;
  out.set(createHash('sha256').update(key).digest().subarray(0, SLOT));
  return true;
}

function nibble(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  return -1;
}

const slotHash = (b: Uint8Array, mask: number) =>
  (((b[0] as number) << 24) | ((b[1] as number) << 16) | ((b[2] as number) << 8) | (b[3] as number)) & mask;

function findSlot(view: Uint8Array, capacity: number, key: Uint8Array): { index: number; found: boolean } {
  const mask = capacity - 1;
  let i = slotHash(key, mask);
  for (;;) {
    const at = i * SLOT;
    let empty = true;
    let equal = true;
    for (let j = 0; j < SLOT; j++) {
      const v = view[at + j] as number;
      if (v !== 0) empty = false;
      if (v !== key[j]) equal = false;
    }
    if (equal && !empty) return { index: i, found: true };
    if (empty) return { index: i, found: false };
    i = (i + 1) & mask;
  }
}

/**
 * `findSlot(...).found` for the read path, five 32-bit words at a time and without a result
 * object (issue 17: the bitcoin detector asks once per output, ~8 000 times a block; what remains
 * is mostly the one cache miss into the table).
 */
function contains(words: Uint32Array, capacity: number, key: Uint8Array, k: Uint32Array): boolean {
  const mask = capacity - 1;
  const k0 = k[0] as number;
  const k1 = k[1] as number;
  const k2 = k[2] as number;
  const k3 = k[3] as number;
  const k4 = k[4] as number;
  for (let i = slotHash(key, mask); ; i = (i + 1) & mask) {
    const at = i * WORDS;
    const w0 = words[at] as number;
    const w1 = words[at + 1] as number;
    const w2 = words[at + 2] as number;
    const w3 = words[at + 3] as number;
    const w4 = words[at + 4] as number;
    if (w0 === k0 && w1 === k1 && w2 === k2 && w3 === k3 && w4 === k4) return true;
    // Not this key: an empty slot ends the probe, an occupied one sends it on.
    if ((w0 | w1 | w2 | w3 | w4) === 0) return false;
  }
}

const isZero = (key: Uint8Array): boolean => {
  for (let j = 0; j < SLOT; j++) if (key[j] !== 0) return false;
  return true;
};

/** Read side, used in workers: `has()` on the match form. */
export class SharedAddressView {
  readonly #words: Uint32Array;
  readonly #filter: Uint32Array;
  readonly #filterMask: number;
  readonly #capacity: number;
  readonly #key = new Uint8Array(SLOT);
  /** The same 20 bytes as `#key`, as words (native byte order, like `#words`). */
  readonly #keyWords = new Uint32Array(this.#key.buffer);

  constructor(table: SharedAddressTable) {
    this.#words = new Uint32Array(table.buffer, 0, table.capacity * WORDS);
    this.#filter = new Uint32Array(table.buffer, filterOffset(table.capacity), filterWords(table.capacity));
    this.#filterMask = filterWords(table.capacity) - 1;
    this.#capacity = table.capacity;
  }

  has(matchKey: string): boolean {
    // The EVM form: the filter first, from key bytes 4-11 read off the hex (an EVM detect asks once
    // per Transfer log to an allow-listed token, 400 times a busy block, and almost all say no).
    if (
      matchKey.length === 42 &&
      matchKey.charCodeAt(0) === 48 &&
      matchKey.charCodeAt(1) === 120 &&
      !this.#mayHold(hexWord(matchKey, 4), hexWord(matchKey, 8))
    )
      return false;
    if (!hexToBytes(matchKey, this.#key)) return false;
    // The zero address marks an empty slot; it is never a deposit address.
    if (isZero(this.#key)) return false;
    return contains(this.#words, this.#capacity, this.#key, this.#keyWords);
  }

  /** `has()` for a match form that is the lowercase hex of `bytes[start..end)` (a UTXO script), without the hex or a view. */
  hasBytes(bytes: Uint8Array, start = 0, end = bytes.length): boolean {
    const tail = end - start - SLOT;
    if (tail < 0) return false;
    // Scripts up to 40 bytes (every standard output) fold at most one byte into each key byte:
    // probe the filter with key bytes 4-11 read from the script itself, before building the key
    // (~99 % of outputs stop here).
    if (tail <= 4) {
      // P2WPKH, P2SH: nothing is folded into bytes 4-11.
      if (!this.#mayHold(le32(bytes, start + tail + 4), le32(bytes, start + tail + 8))) return false;
    } else if (tail <= SLOT && !this.#mayHold(foldedWord(bytes, start, tail, 4), foldedWord(bytes, start, tail, 8))) return false;
    if (!fold(bytes, this.#key, start, end) || isZero(this.#key)) return false;
    if (tail > SLOT && !this.#mayHold(le32(this.#key, 4), le32(this.#key, 8))) return false;
    return contains(this.#words, this.#capacity, this.#key, this.#keyWords);
  }

  #mayHold(w1: number, w2: number): boolean {
    const bits = filterBits(w2);
    return ((this.#filter[w1 & this.#filterMask] as number) & bits) === bits;
  }
}

/** Write side, on the main thread. */
export class SharedAddressSet {
  #table: SharedAddressTable;
  #size = 0;
  readonly #key = new Uint8Array(SLOT);

  constructor(initialCapacity = 1024) {
    this.#table = SharedAddressSet.#allocate(initialCapacity);
  }

  static #allocate(minCapacity: number): SharedAddressTable {
    let capacity = 1;
    while (capacity < minCapacity) capacity <<= 1;
    return { buffer: new SharedArrayBuffer(filterOffset(capacity) + filterWords(capacity) * 4), capacity };
  }

  get size(): number {
    return this.#size;
  }

  get table(): SharedAddressTable {
    return this.#table;
  }

  /** Adds an address in match form; false for one that is not 20-byte lowercase hex or already there. */
  add(matchKey: string): boolean {
    if (!hexToBytes(matchKey, this.#key) || this.#key.every((b) => b === 0)) return false;
    if ((this.#size + 1) * 2 > this.#table.capacity) this.#grow();
    const view = new Uint8Array(this.#table.buffer);
    const slot = findSlot(view, this.#table.capacity, this.#key);
    if (slot.found) return false;
    // Bits first: a worker reading meanwhile never finds the slot behind a filter that says no.
    SharedAddressSet.#mark(this.#table, this.#key);
    view.set(this.#key, slot.index * SLOT);
    this.#size++;
    return true;
  }

  /** Sets the key's filter bits; readers never see a slot without its bits (the bits only ever grow). */
  static #mark(table: SharedAddressTable, key: Uint8Array): void {
    const filter = new Uint32Array(table.buffer, filterOffset(table.capacity), filterWords(table.capacity));
    const i = le32(key, 4) & (filterWords(table.capacity) - 1);
    filter[i] = (filter[i] as number) | filterBits(le32(key, 8));
  }

  #grow(): void {
    const old = new Uint8Array(this.#table.buffer);
    const next = SharedAddressSet.#allocate(this.#table.capacity * 2);
    const view = new Uint8Array(next.buffer);
    const key = new Uint8Array(SLOT);
    for (let i = 0; i < this.#table.capacity; i++) {
      key.set(old.subarray(i * SLOT, i * SLOT + SLOT));
      if (key.every((b) => b === 0)) continue;
      view.set(key, findSlot(view, next.capacity, key).index * SLOT);
      SharedAddressSet.#mark(next, key);
    }
    this.#table = next;
  }
}
