import type { MempoolSnapshot } from '@walletd/core';
import { detectTask, dropNonPositive, formatSenders } from './detectAt';
import type { FollowerContext } from './followerContext';
import { persistMempool } from '../store/transferStore';

/** New mempool transactions to company addresses: pending, 0 confirmations. */
export async function scanMempool(ctx: FollowerContext, snapshot: MempoolSnapshot): Promise<void> {
  const { db, pool, key, assets, fence, m, labels, logger } = ctx;
  const found = dropNonPositive(ctx, snapshot.raw.length > 0 ? await pool.detectMempool(detectTask(ctx, snapshot.raw)) : []);
  formatSenders(ctx, found);
  const detected = await persistMempool(db, key, found, assets.byKey, fence);
  ctx.mempoolSeen = new Set(snapshot.txids);
  if (detected) {
    m?.deposits.inc({ ...labels, type: 'deposit.detected' }, detected);
    logger.info({ detected }, 'deposits detected in the mempool');
  }
}
