import type { AssetRef, DetectedTransfer } from '@walletd/core';
import type { Knex } from 'knex';
import { type TransferRow, recordDepositEvents } from '../depositEvents';
import type { AddressRow, ChainKey } from './types';

/**
 * A transfer seen again under an identity already stored whose content differs (amount, asset,
 * recipient): another fork executed the same transaction (a Solana or Tron signature) with other
 * balance deltas. It is another transfer, not the stored one re-attached: a pending row is
 * retracted here (`deposit.rejected`, reason `reorg`, with what was announced), so the insert that
 * follows takes the new content and announces it as a row a reorg had retracted. Confirmed rows are
 * never re-attached and are left alone.
 */
export async function retractChanged(
  trx: Knex.Transaction,
  k: ChainKey,
  rows: { t: DetectedTransfer; address: AddressRow }[],
  assets: Map<string, AssetRef>,
): Promise<void> {
  const byIdentity = new Map(rows.map((r) => [`${r.t.txKey ?? r.t.txHash}:${r.t.eventIndex}`, r]));
  const stored = (await trx('transfers')
    .where({ chain: k.chain, network: k.network, status: 'pending' })
    .whereIn(
      ['tx_key', 'event_index'],
      rows.map((r) => [r.t.txKey ?? r.t.txHash, r.t.eventIndex]),
    )
    .select('id', 'tx_key', 'event_index', 'amount', 'asset_key', 'address_id')) as {
    id: number;
    tx_key: string;
    event_index: number;
    amount: string;
    asset_key: string;
    address_id: number;
  }[];
  const changed = stored.filter((s) => {
    const seen = byIdentity.get(`${s.tx_key}:${s.event_index}`);
    return seen && (BigInt(s.amount) !== seen.t.amount || s.asset_key !== seen.t.assetKey || s.address_id !== seen.address.id);
  });
  if (changed.length === 0) return;
  const retracted = (await trx('transfers')
    .whereIn(
      'id',
      changed.map((c) => c.id),
    )
    .update({ status: 'rejected', reason: 'reorg', confirmations: 0, updated_at: trx.fn.now() })
    .returning('*')) as TransferRow[];
  retracted.sort((x, y) => x.id - y.id);
  await recordDepositEvents(
    trx,
    'deposit.rejected',
    retracted.flatMap((row) => {
      const asset = assets.get(row.asset_key);
      return asset ? [{ row, asset }] : [];
    }),
  );
}
