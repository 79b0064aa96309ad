import type { AssetRef, DetectedTransfer } from '@walletd/core';
import type { Knex } from 'knex';
import { type TransferRow, recordDepositEvents } from '../depositEvents';
import type { AddressRow, ChainKey } from '../../types';

/**
 * A transfer seen again under an identity already stored whose content differs (amount, asset,
 * recipient): another fork executed the same transaction (a Solana or Tron signature, an EVM
 * transaction whose effect depends on state) with other balance deltas. It is another transfer,
 * not the stored one re-attached: the stored row is retracted here whatever its status
 * (`deposit.rejected`, reason `reorg`, with what was announced and `previousStatus`: a confirmed
 * one was credited and must be reversed), so the insert that follows takes the new content and
 * announces it as a row a reorg had retracted.
 */
export async function retractChanged(
  trx: Knex.Transaction,
  k: ChainKey,
  rows: { t: DetectedTransfer; address: AddressRow }[],
  assets: Map<string, AssetRef>,
): Promise<void> {
  const byIdentity = new Map(rows.map((r) => [`${r.t.txKey ?? r.t.txHash}:${r.t.eventIndex}`, r]));
  const stored = (await trx('transfers')
    .where({ chain: k.chain, network: k.network })
    .whereIn('status', ['pending', 'confirmed'])
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
  const { rows: retracted } = (await trx.raw(
    `update transfers t
        set status = 'rejected', reason = 'reorg', confirmations = 0, updated_at = now()
       from (select id, status from transfers where id = any(?::bigint[]) for update) old
      where t.id = old.id
      returning t.*, old.status as previous_status`,
    [changed.map((c) => c.id)] as unknown as readonly Knex.RawBinding[],
  )) as { rows: TransferRow[] };
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
