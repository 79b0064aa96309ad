import type { AssetRef, ConfirmDecision, Db } from '@walletd/core';
import type { Fence } from '../chainLease';
import { type TransferRow, recordDepositEvent } from '../depositEvents';
import type { ChainKey } from './types';

/**
 * Records the plugin's decisions: `deposit.confirmed` (the signal to credit) or `deposit.rejected`,
 * each with its event in the same transaction, in chain order. Only still-pending rows change.
 */
export async function applyDecisions(
  db: Db,
  k: ChainKey,
  decisions: ConfirmDecision[],
  assets: Map<string, AssetRef>,
  fence?: Fence,
): Promise<number> {
  if (decisions.length === 0) return 0;
  const sorted = [...decisions].sort((x, y) => x.id - y.id);
  return db.transaction(async (trx) => {
    await fence?.(trx);
    let n = 0;
    for (const d of sorted) {
      const current = (await trx('transfers')
        .where({ ...k, id: d.id, status: 'pending' })
        .forUpdate()
        .first('asset_key')) as { asset_key: string } | undefined;
      // No status change without its event: an asset no longer configured leaves the row pending.
      const asset = current ? assets.get(current.asset_key) : undefined;
      if (!asset) continue;
      const [row] = (await trx('transfers')
        .where({ ...k, id: d.id })
        .update({ status: d.status, confirmations: d.confirmations, reason: d.reason ?? null, updated_at: trx.fn.now() })
        .returning('*')) as TransferRow[];
      if (!row) continue;
      await recordDepositEvent(trx, d.status === 'confirmed' ? 'deposit.confirmed' : 'deposit.rejected', row, asset);
      n++;
    }
    return n;
  });
}
