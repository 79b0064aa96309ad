import { type AssetRef, type Db, type PreparedStatement, runPrepared } from '@walletd/core';
import type { Knex } from 'knex';
import type { Fence } from '../../types';
import { type TransferRow, recordDepositEvents } from '../depositEvents';
import type { ChainKey } from '../../types';

/**
 * Every round runs this; by name, planned once per connection (see pendingTransfers.ts). A
 * confirmed row in no block is one a reorg deeper than the threshold detached (`rewindTo`):
 * mined (`seen_in_block`), then taken back. Two branches, each on its partial index (migrations
 * 020 and 032): one condition with `or` would read every rejected row, which has no block either.
 */
const CANDIDATES: PreparedStatement = {
  name: 'walletd_detached_candidates',
  text: `select id, tx_hash from transfers
          where chain = $1 and network = $2 and block_number is null and status = 'pending' and asset_key = any($3::text[])
         union all
         select id, tx_hash from transfers
          where chain = $1 and network = $2 and block_number is null and status = 'confirmed' and seen_in_block and asset_key = any($3::text[])`,
  genericPlan: true,
};

/**
 * Transfers in no block at the head of the chain: `deposit.rejected` with `previousStatus`. Mined
 * once and removed by a reorg: reason `reorg`; seen only in the mempool: `mempool_dropped`. A
 * confirmed one (a reorg deeper than the threshold) is rejected the same way, `previousStatus:
 * "confirmed"` telling receivers to reverse the credit; the ledger's triggers take it out of
 * `confirmed` and `available`. On chains with a mempool (`mempool` given), those whose transaction
 * is still in it wait: a reorged transaction usually goes back there and is mined again.
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
    const { rows } = (await trx.raw(
      `update transfers t
          set status = 'rejected',
              reason = case when t.seen_in_block then 'reorg' else 'mempool_dropped' end,
              confirmations = 0, updated_at = now()
         from (select id, status from transfers where id = any(?::bigint[]) for update) old
        where t.id = old.id and t.block_number is null
          and (t.status = 'pending' or (t.status = 'confirmed' and t.seen_in_block))
        returning t.*, old.status as previous_status`,
      [gone] as unknown as readonly Knex.RawBinding[],
    )) as { rows: TransferRow[] };
    rows.sort((x, y) => x.id - y.id);
    const items = rows.flatMap((row) => {
      const asset = assets.get(row.asset_key);
      return asset ? [{ row, asset }] : [];
    });
    await recordDepositEvents(trx, 'deposit.rejected', items);
    return rows.length;
  });
}
