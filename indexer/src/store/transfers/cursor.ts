import type { Db } from '@walletd/core';
import type { Knex } from 'knex';
import type { Fence } from '../../types';
import type { ChainKey, Cursor } from '../../types';

export async function readCursor(db: Db, k: ChainKey): Promise<Cursor | null> {
  const row = await db('chain_cursors').where(k).first('height', 'hash');
  return row ? { height: BigInt(row.height), hash: row.hash } : null;
}

export async function writeCursor(trx: Knex.Transaction, k: ChainKey, height: bigint, hash: string | null): Promise<void> {
  await trx('chain_cursors')
    .insert({ ...k, height: height.toString(), hash, updated_at: trx.fn.now() })
    .onConflict(['chain', 'network'])
    .merge();
}

/**
 * Heights without a block (a Solana skipped slot) stepped over: the cursor moves past them, the
 * hash stays the last recorded block's. Fenced like every follower write.
 */
export async function advanceCursor(db: Db, k: ChainKey, height: bigint, lastHash: string | null, fence?: Fence): Promise<void> {
  await db.transaction(async (trx) => {
    await fence?.(trx);
    await writeCursor(trx, k, height, lastHash);
  });
}
