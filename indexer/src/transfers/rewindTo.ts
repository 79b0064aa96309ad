import type { Db } from '@walletd/core';
import type { Fence } from '../chainLease';
import { writeCursor } from './cursor';
import type { ChainKey } from './types';

/**
 * Rewinds to the common ancestor: blocks above it leave the window; their pending transfers are
 * detached (block unknown) until they are seen again or the follower decides they are gone.
 * Confirmed transfers in those blocks are not touched: a reorg deeper than the confirmation
 * threshold is logged loudly by the caller and needs a person.
 */
export async function rewindTo(
  db: Db,
  k: ChainKey,
  ancestor: bigint,
  ancestorHash: string,
  fence?: Fence,
): Promise<{ detached: number; confirmedAbove: number }> {
  return db.transaction(async (trx) => {
    await fence?.(trx);
    const above = ancestor.toString();
    const detached = await trx('transfers')
      .where(k)
      .andWhere('block_number', '>', above)
      .andWhere('status', 'pending')
      .update({ block_number: null, block_hash: null, updated_at: trx.fn.now() });
    const [{ n }] = (await trx('transfers')
      .where(k)
      .andWhere('block_number', '>', above)
      .andWhere('status', 'confirmed')
      .count('* as n')) as [{ n: number }];
    await trx('recent_blocks').where(k).andWhere('height', '>', above).delete();
    await writeCursor(trx, k, ancestor, ancestorHash);
    return { detached, confirmedAbove: Number(n) };
  });
}
