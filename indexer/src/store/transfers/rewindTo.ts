import type { Db } from '@walletd/core';
import type { Fence } from '../../types';
import { recordDeepReorg } from '../deepReorgAudit';
import { stepBackWithdrawals } from '../stepBackWithdrawals';
import { writeCursor } from './cursor';
import type { ChainKey } from '../../types';

export interface Rewound {
  /** Pending transfers taken out of their block. */
  detached: number;
  /** Confirmed transfers taken out of their block: a reorg deeper than the threshold. */
  retractedTransfers: number[];
  /** Confirmed withdrawals whose block left the chain, back to `broadcast`. */
  withdrawals: number[];
}

/**
 * Rewinds to the common ancestor: blocks above it leave the window, and every record in them
 * leaves its block (block unknown, 0 confirmations: a record describes the block it is in now).
 * Pending transfers wait to be seen again or are rejected at the head (`rejectDetached`).
 * Confirmed ones (a reorg deeper than the threshold) keep their status while the follower looks
 * for them the same way: seen again with the same content, they are re-attached and stay
 * confirmed (receivers were told once); gone, they are rejected with `previousStatus: "confirmed"`.
 * Confirmed withdrawals in those blocks go back to `broadcast` for the tracker to judge again.
 * A deep reorg leaves an audit row (`chain.deep_reorg`) in the same transaction.
 */
export async function rewindTo(
  db: Db,
  k: ChainKey,
  ancestor: bigint,
  ancestorHash: string,
  fence?: Fence,
  from?: bigint,
): Promise<Rewound> {
  return db.transaction(async (trx) => {
    await fence?.(trx);
    const above = ancestor.toString();
    const detached = await trx('transfers')
      .where(k)
      .andWhere('block_number', '>', above)
      .andWhere('status', 'pending')
      .update({ block_number: null, block_hash: null, updated_at: trx.fn.now() });
    const retracted = (await trx('transfers')
      .where(k)
      .andWhere('block_number', '>', above)
      .andWhere('status', 'confirmed')
      .update({ block_number: null, block_hash: null, confirmations: 0, updated_at: trx.fn.now() })
      .returning('id')) as { id: number | string }[];
    const retractedTransfers = retracted.map((r) => Number(r.id)).sort((a, b) => a - b);
    const withdrawals = await stepBackWithdrawals(trx, k, ancestor);
    await trx('recent_blocks').where(k).andWhere('height', '>', above).delete();
    await writeCursor(trx, k, ancestor, ancestorHash);
    if (retractedTransfers.length + withdrawals.length > 0)
      await recordDeepReorg(trx, { ...k, ancestor, from: from ?? ancestor + 1n, retractedTransfers, withdrawals });
    return { detached, retractedTransfers, withdrawals };
  });
}
