import type { AssetRef, Db, DetectResult } from '@walletd/core';
import type { Fence } from '../../types';
import { recordDepositEvents } from '../depositEvents';
import { insertTransfers } from './insertTransfers';
import { recordWindow } from './recordWindow';
import type { ChainKey } from '../../types';

/**
 * Consecutive blocks of a catch-up (each one's parent already checked against the one before), in
 * one transaction: the transfers of all of them (one statement), the `deposit.detected` events of
 * the new ones in chain order (one statement), and one statement for the blocks in the recent
 * window and the cursor (recordWindow.ts), at the last block or at `cursorTo`, a higher height
 * without a block stepped over after it. All or nothing, like `persistBlock` for one. Returns the
 * deposits announced per block.
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
    const cursorTo = options.cursorTo !== undefined && options.cursorTo > last.number ? options.cursorTo : last.number;
    await recordWindow(
      trx,
      k,
      results.map((r) => r.block),
      window,
      cursorTo,
      last.hash,
    );
    return detected;
  });
}
