import type { AssetRef, Db, DetectResult } from '@walletd/core';
import type { Fence } from '../chainLease';
import { recordDepositEvents } from '../depositEvents';
import { writeCursor } from './cursor';
import { insertTransfers } from './insertTransfers';
import type { ChainKey } from './types';

/**
 * Consecutive blocks of a catch-up (each one's parent already checked against the one before), in
 * one transaction: the transfers of all of them (one statement), the `deposit.detected` events of
 * the new ones in chain order (one statement), the blocks in the recent window (one statement) and
 * the cursor, at the last block or at `cursorTo`, a higher height without a block stepped over
 * after it. All or nothing, like `persistBlock` for one. Returns the deposits announced per block.
 */
export async function persistBlocks(
  db: Db,
  k: ChainKey,
  results: DetectResult[],
  assets: Map<string, AssetRef>,
  window: number,
  head: bigint,
  options: { fence?: Fence; cursorTo?: bigint } = {},
): Promise<number[]> {
  if (results.length === 0) return [];
  return db.transaction(async (trx) => {
    await options.fence?.(trx);
    const seen = results.flatMap(({ block, transfers }) =>
      transfers.map((transfer) => ({ transfer, block, confirmations: Number(head - block.number + 1n) })),
    );
    const announced = await insertTransfers(trx, k, seen, assets, 'blocks');
    await recordDepositEvents(trx, 'deposit.detected', announced);
    const detected = results.map(({ block }) => announced.filter((a) => String(a.row.block_number) === block.number.toString()).length);
    const last = (results[results.length - 1] as DetectResult).block;
    await trx('recent_blocks')
      .insert(results.map(({ block }) => ({ ...k, height: block.number.toString(), hash: block.hash, parent_hash: block.parentHash })))
      .onConflict(['chain', 'network', 'height'])
      .merge();
    await trx('recent_blocks')
      .where(k)
      .andWhere('height', '<=', (last.number - BigInt(window)).toString())
      .delete();
    const cursorTo = options.cursorTo !== undefined && options.cursorTo > last.number ? options.cursorTo : last.number;
    await writeCursor(trx, k, cursorTo, last.hash);
    return detected;
  });
}
