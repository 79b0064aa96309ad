import { type Db, runPrepared } from '@walletd/core';

/** The indexed height of each chain/network, keyed `chain/network`. */
export type IndexedHeights = ReadonlyMap<string, bigint>;

const key = (chain: string, network: string) => `${chain}/${network}`;

const HEIGHTS = {
  name: 'walletd_indexed_heights',
  text: 'select chain, network, height::text as height from chain_cursors where chain = any($1::text[])',
};

/**
 * The indexer's cursor (the highest block it has read) of each chain named in `rows`: one
 * statement per request whatever the number of rows. Only rows that can use it are asked for
 * (`needsHeight`), so a page of pending rows costs nothing.
 */
export async function indexedHeights(
  db: Db,
  rows: readonly { chain: string; status: string; block_number: unknown }[],
): Promise<IndexedHeights> {
  const chains = [...new Set(rows.filter(needsHeight).map((r) => r.chain))];
  if (chains.length === 0) return new Map();
  const found = await runPrepared<{ chain: string; network: string; height: string }>(db, HEIGHTS, [chains]);
  return new Map(found.map((r) => [key(r.chain, r.network), BigInt(r.height)]));
}

const needsHeight = (r: { status: string; block_number: unknown }) => r.status === 'confirmed' && r.block_number !== null;

/**
 * A confirmed transaction's confirmations now: blocks from its own to the indexed height,
 * inclusive (the rule it was confirmed by: head − block + 1), never fewer than it was confirmed
 * with (a cursor a moment behind the node head the tracker used, or rewound by a reorg elsewhere).
 * Stored values stand for everything else: a pending row's count is refreshed by every indexer
 * round, a rejected one has none to grow.
 */
export function liveConfirmations(
  row: { chain: string; network: string; status: string; block_number: string | number | null; confirmations: number | null },
  heights: IndexedHeights,
): number | null {
  if (!needsHeight(row)) return row.confirmations;
  const height = heights.get(key(row.chain, row.network));
  if (height === undefined) return row.confirmations;
  const now = height - BigInt(row.block_number as string | number) + 1n;
  const stored = row.confirmations ?? 0;
  // Past 2^53 no height or count is real; a number keeps the field's JSON type.
  return now > BigInt(stored) ? Number(now) : stored;
}
