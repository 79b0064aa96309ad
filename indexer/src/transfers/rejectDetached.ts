import { type AssetRef, type Db, type PreparedStatement, runPrepared } from '@walletd/core';
import type { Fence } from '../chainLease';
import { type TransferRow, recordDepositEvents } from '../depositEvents';
import type { ChainKey } from './types';

/** Every round runs this; by name, planned once per connection (see pendingTransfers.ts). */
const CANDIDATES: PreparedStatement = {
  name: 'walletd_detached_candidates',
  text: `select id, tx_hash from transfers
          where chain = $1 and network = $2 and block_number is null and status = 'pending' and asset_key = any($3::text[])`,
  genericPlan: true,
};

/**
 * Pending transfers in no block at the head of the chain: `deposit.rejected`. Mined once and
 * removed by a reorg: reason `reorg`; seen only in the mempool: `mempool_dropped`. On chains with
 * a mempool (`mempool` given), those whose transaction is still in it stay pending: a reorged
 * transaction usually goes back there and is mined again.
 */
export async function rejectDetached(
  db: Db,
  k: ChainKey,
  assets: Map<string, AssetRef>,
  mempool: ReadonlySet<string> | null = null,
  fence?: Fence,
): Promise<number> {
  return db.transaction(async (trx) => {
    await fence?.(trx);
    const candidates = await runPrepared<{ id: number; tx_hash: string }>(trx, CANDIDATES, [k.chain, k.network, [...assets.keys()]]);
    const gone = candidates.filter((c) => !mempool?.has(c.tx_hash)).map((c) => c.id);
    if (gone.length === 0) return 0;
    const rows = (await trx('transfers')
      .whereIn('id', gone)
      .andWhere('status', 'pending')
      .whereNull('block_number')
      .update({
        status: 'rejected',
        reason: trx.raw(`case when seen_in_block then 'reorg' else 'mempool_dropped' end`),
        confirmations: 0,
        updated_at: trx.fn.now(),
      })
      .returning('*')) as TransferRow[];
    rows.sort((x, y) => x.id - y.id);
    const items = rows.flatMap((row) => {
      const asset = assets.get(row.asset_key);
      return asset ? [{ row, asset }] : [];
    });
    await recordDepositEvents(trx, 'deposit.rejected', items);
    return rows.length;
  });
}
