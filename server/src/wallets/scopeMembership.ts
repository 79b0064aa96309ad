/**
 * The test "is this row's wallet one of the key's" in a capped walk (transactionPageText.ts,
 * issue 48 §5), as SQL over `column`, its values added through `param`.
 *
 * Why a bitmap: on the walk's generic plan the ids are a parameter, so `wallet_id in (select
 * unnest(ids))` is a hashed subplan that hashes the key's ids on every run, once per side; with
 * 1,000 ids that was most of the page's PostgreSQL time (100k transfers, one connection: 1.47 ms
 * of backend CPU a page, 0.58 for the company's own page; `get_bit` over a bitmap of the ids: 0.83).
 * A company's wallets are made one after another, so their ids are close and the bitmap from the
 * lowest id to the highest is small (1,000 wallets: 127 bytes); one bit per id is read per row.
 * Ids spread wider than SCOPE_BITMAP_BYTES allows keep the hashed subplan.
 */
export const SCOPE_BITMAP_BYTES = 16_384;

export interface ScopeBitmap {
  /** Bit `id - low` is set for each id; bits are read least significant first, as `get_bit` does. */
  bits: Buffer;
  low: number;
  high: number;
}

/** The ids as a bitmap from the lowest to the highest, or null where that takes more than SCOPE_BITMAP_BYTES. */
export function scopeBitmap(ids: ReadonlySet<number>): ScopeBitmap | null {
  let low = Number.POSITIVE_INFINITY;
  let high = Number.NEGATIVE_INFINITY;
  for (const id of ids) {
    if (id < low) low = id;
    if (id > high) high = id;
  }
  if (ids.size === 0 || (high - low) / 8 >= SCOPE_BITMAP_BYTES) return null;
  const bits = Buffer.alloc(Math.floor((high - low) / 8) + 1);
  for (const id of ids) bits[(id - low) >> 3] = (bits[(id - low) >> 3] as number) | (1 << ((id - low) & 7));
  return { bits, low, high };
}

/**
 * SQL true where `column` (an int) is one of `ids`, false otherwise. The CASE keeps `get_bit` from
 * reading past the bitmap: PostgreSQL does not promise the order in which an AND is evaluated.
 */
export function scopeMembership(column: string, ids: ReadonlySet<number>, param: (value: unknown, cast?: string) => string): string {
  const bitmap = scopeBitmap(ids);
  if (!bitmap) return `${column} in (select unnest(${param([...ids], '::int[]')}))`;
  const low = param(bitmap.low, '::int');
  const high = param(bitmap.high, '::int');
  return `case when ${column} between ${low} and ${high} then get_bit(${param(bitmap.bits, '::bytea')}, ${column} - ${low}) = 1 else false end`;
}
