import type { AssetRef, Db, DetectedTransfer } from '@walletd/core';
import type { Fence } from '../../types';
import { recordDepositEvents } from '../depositEvents';
import { insertTransfers } from './insertTransfers';
import type { ChainKey } from '../../types';

/**
 * Deposits seen in the node's mempool: recorded pending with 0 confirmations and no block, and
 * announced (`deposit.detected`) the first time only. Never credited: a block confirms them later.
 */
export async function persistMempool(
  db: Db,
  k: ChainKey,
  transfers: DetectedTransfer[],
  assets: Map<string, AssetRef>,
  fence?: Fence,
): Promise<number> {
  if (transfers.length === 0) return 0;
  return db.transaction(async (trx) => {
    await fence?.(trx);
    const seen = transfers.map((transfer) => ({ transfer, block: null, confirmations: 0 }));
    const announced = await insertTransfers(trx, k, seen, assets, 'mempool');
    await recordDepositEvents(trx, 'deposit.detected', announced);
    return announced.length;
  });
}
