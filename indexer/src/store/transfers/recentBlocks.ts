import type { Db } from '@walletd/core';
import type { ChainKey } from '../../types';

export interface RecordedBlock {
  height: bigint;
  hash: string;
}

/** The recorded block at a height; null when none is (out of the window, or a height without a block). */
export async function recentHash(db: Db, k: ChainKey, height: bigint): Promise<string | null> {
  const row = await db('recent_blocks')
    .where({ ...k, height: height.toString() })
    .first('hash');
  return row?.hash ?? null;
}

/** The highest recorded block: what the next block's parent must be. */
export async function lastRecordedBlock(db: Db, k: ChainKey): Promise<RecordedBlock | null> {
  const row = (await db('recent_blocks').where(k).orderBy('height', 'desc').first('height', 'hash')) as
    | { height: string; hash: string }
    | undefined;
  return row ? { height: BigInt(row.height), hash: row.hash } : null;
}

/** Recorded blocks below a height, highest first, down to `lowest` (the reorg ancestor search). */
export async function recordedBlocksBelow(db: Db, k: ChainKey, height: bigint, lowest: bigint): Promise<RecordedBlock[]> {
  const rows = (await db('recent_blocks')
    .where(k)
    .andWhere('height', '<', height.toString())
    .andWhere('height', '>=', lowest.toString())
    .orderBy('height', 'desc')
    .select('height', 'hash')) as { height: string; hash: string }[];
  return rows.map((r) => ({ height: BigInt(r.height), hash: r.hash }));
}
