import type { AssetRef, Db, DetectResult } from '@walletd/core';
import type { Fence } from '../../types';
import { recordDepositEvents } from '../depositEvents';
import { insertTransfers } from './insertTransfers';
import { persistBlocks } from './persistBlocks';
import type { ChainKey } from '../../types';

/**
 * One block, one transaction: its transfers to company addresses (one statement), a
 * `deposit.detected` event for each transfer seen for the first time (one statement), the block in
 * the recent window, the cursor. A transfer seen again (a rescan, or re-inclusion after a reorg) is
 * re-attached to its new block and announces nothing new.
 */
export async function persistBlock(
  db: Db,
  k: ChainKey,
  result: DetectResult,
  assets: Map<string, AssetRef>,
  window: number,
  head: bigint,
  /** false for a rescan: record transfers and events only, never move the live cursor. */
  advanceCursor = true,
  /** The indexer's lease check (see chainLease.ts): an indexer that lost the chain writes nothing. */
  fence?: Fence,
): Promise<number> {
  if (advanceCursor) return (await persistBlocks(db, k, [result], assets, window, head, { fence }))[0] ?? 0;
  const { block, transfers } = result;
  return db.transaction(async (trx) => {
    await fence?.(trx);
    const confirmations = Number(head - block.number + 1n);
    const seen = transfers.map((transfer) => ({ transfer, block, confirmations }));
    const announced = await insertTransfers(trx, k, seen, assets, 'blocks');
    await recordDepositEvents(trx, 'deposit.detected', announced);
    return announced.length;
  });
}
