import { type AssetRef, type ConfirmDecision, type Db, recordEvents } from '@walletd/core';
import type { Knex } from 'knex';
import type { Fence } from '../../types';
import { type TransferRow, depositEvent } from '../depositEvents';
import type { ChainKey } from '../../types';

/**
 * Records the plugin's decisions: `deposit.confirmed` (the signal to credit) or `deposit.rejected`,
 * each with its event in the same transaction, in chain order. Only still-pending rows change.
 *
 * Three statements whatever the number of decisions (lock the pending rows, update them, record
 * their events): one deposit at a time cost three round trips each, 1,200 statements for the
 * 400 deposits of the follower bench's catch-up (issue 17).
 */
export async function applyDecisions(
  db: Db,
  k: ChainKey,
  decisions: ConfirmDecision[],
  assets: Map<string, AssetRef>,
  fence?: Fence,
): Promise<number> {
  if (decisions.length === 0) return 0;
  // Chain order; a second decision for the same row would find it no longer pending.
  const byId = new Map<number, ConfirmDecision>();
  for (const d of [...decisions].sort((x, y) => x.id - y.id)) if (!byId.has(d.id)) byId.set(d.id, d);
  return db.transaction(async (trx) => {
    await fence?.(trx);
    const pending = (await trx('transfers')
      .where(k)
      // One array parameter, not one per id: a round after a long outage may decide more rows than a statement takes parameters.
      .whereRaw('id = any(?::bigint[])', [[...byId.keys()]])
      .andWhere({ status: 'pending' })
      .orderBy('id')
      .forUpdate()
      .select('id', 'asset_key')) as { id: number; asset_key: string }[];
    // No status change without its event: an asset no longer configured leaves the row pending.
    const chosen = pending.filter((p) => assets.has(p.asset_key)).map((p) => byId.get(p.id) as ConfirmDecision);
    if (chosen.length === 0) return 0;
    const { rows } = (await trx.raw(
      `update transfers t
          set status = u.status, confirmations = u.confirmations, reason = u.reason, updated_at = now()
         from unnest(?::bigint[], ?::text[], ?::int[], ?::text[]) as u(id, status, confirmations, reason)
        where t.chain = ? and t.network = ? and t.id = u.id
        returning t.*, 'pending'::text as previous_status`,
      [
        chosen.map((d) => d.id),
        chosen.map((d) => d.status),
        chosen.map((d) => d.confirmations),
        chosen.map((d) => d.reason ?? null),
        k.chain,
        k.network,
      ] as unknown as readonly Knex.RawBinding[],
    )) as { rows: TransferRow[] };
    const updated = rows.sort((x, y) => x.id - y.id);
    await recordEvents(
      trx,
      updated.map((row) =>
        depositEvent(row.status === 'confirmed' ? 'deposit.confirmed' : 'deposit.rejected', row, assets.get(row.asset_key) as AssetRef),
      ),
    );
    return updated.length;
  });
}
