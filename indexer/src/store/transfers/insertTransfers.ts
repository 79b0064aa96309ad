import type { AssetRef, DetectedTransfer } from '@walletd/core';
import type { Knex } from 'knex';
import type { TransferRow } from '../depositEvents';
import type { HeldTransfer } from '../../types';
import { ownMovements } from '../ownMovements';
import { addressesFor } from './addressesFor';
import { retractChanged } from './retractChanged';
import type { AddressRow, ChainKey } from '../../types';

/** Where a transfer was seen: a block (with its depth at the head), or the mempool (`block` null). */
export interface Seen {
  /** `held`: recorded pending with that reason, never confirmed (holdUnbacked.ts). */
  transfer: HeldTransfer;
  block: { number: bigint; hash: string } | null;
  confirmations: number;
}

export interface Announced {
  row: TransferRow;
  asset: AssetRef;
}

/**
 * Both insert paths in one statement: every transfer of one or several consecutive blocks (or of
 * a mempool snapshot) to a company address, unique by (chain, network, tx key, event index), so exactly once however
 * often a block is read. The key lives in `transfer_keys` (transfers are partitioned by month, migration 027; its
 * trigger refuses a second row for a key), locked here before the write. Returns what is to be announced (`deposit.detected`), in input order:
 * - from a block: a new row; a row seen again (a rescan, a re-inclusion after a reorg, a mempool
 *   deposit now mined) is re-attached to the block and announces nothing, unless a reorg or the
 *   mempool had retracted it, in which case it is pending again and announced again; a confirmed
 *   row a deep reorg detached is re-attached and stays confirmed (announced once: receivers never
 *   see deposit.confirmed twice without a deposit.rejected between); seen again with other content
 *   (amount, asset, recipient), whatever its status, it is retracted first and announced anew;
 * - from the mempool: a new row only (pending, 0 confirmations, no block); a known one is left alone.
 */
export async function insertTransfers(
  trx: Knex.Transaction,
  k: ChainKey,
  seen: Seen[],
  assets: Map<string, AssetRef>,
  /** Rows from blocks are attached to them; from the mempool, only new rows are written. */
  from: 'blocks' | 'mempool',
): Promise<Announced[]> {
  if (seen.length === 0) return [];
  const byKey = await addressesFor(
    trx,
    k,
    seen.map((s) => s.transfer),
  );
  // The wallet's own movements (change of its withdrawals, moves between its addresses) are never stored nor announced.
  const isOwn = await ownMovements(
    trx,
    k,
    seen.map((s) => s.transfer),
  );
  // One row per identity: a statement cannot update the same row twice.
  const ids = new Set<string>();
  const rows: (Seen & { t: HeldTransfer; address: AddressRow })[] = [];
  for (const s of seen) {
    const t = s.transfer;
    const address = byKey.get(t.toKey);
    const id = identity(t);
    // Nothing without a positive amount is a deposit (the follower already dropped and counted
    // them; this holds for every other writer too: rescans, tests, plugins of other authors).
    if (!address || !assets.has(t.assetKey) || ids.has(id) || isOwn(t) || t.amount <= 0n) continue;
    // A token account is credited only in its own asset: anything else reported there (a
    // look-alike token naming it) is not the owner's deposit.
    if (address.only_asset !== null && address.only_asset !== t.assetKey) continue;
    ids.add(id);
    rows.push({ ...s, t, address });
  }
  if (rows.length === 0) return [];
  const inBlock = from === 'blocks';
  // The known ones among them, locked: no other writer changes these transfers' identity until
  // this transaction ends, and the write below (a later statement, a later snapshot) sees them.
  const { rows: known } = await trx.raw(
    `select k.tx_key, k.event_index, k.transfer_id::text as transfer_id, k.created_at::text as created_at
       from transfer_keys k join unnest(?::text[], ?::int[]) as i(tx_key, event_index) using (tx_key, event_index)
      where k.chain = ? and k.network = ?
      order by k.tx_key, k.event_index
      for update of k`,
    [rows.map((r) => r.t.txKey ?? r.t.txHash), rows.map((r) => r.t.eventIndex), k.chain, k.network],
  );
  const keyed = new Map(
    // created_at as text: a JS Date would drop its microseconds and match no row.
    (known as { tx_key: string; event_index: number; transfer_id: string; created_at: string }[]).map((r) => [
      `${r.tx_key}:${r.event_index}`,
      r,
    ]),
  );
  // The identity must determine the transfer: one seen again with other content is another transfer.
  if (inBlock) await retractChanged(trx, k, rows, assets);
  // Content is taken from what was seen: the same as stored, or a row retracted (by a reorg, or just
  // above) that is now this transfer and announced as such. A known transfer is re-attached from a
  // block only while pending, detached by a deep reorg while confirmed, or retracted by a reorg or
  // the mempool; from the mempool, never.
  const reattach = inBlock
    ? `, reattached as (
       update transfers t
          set block_number = i.block_number, block_hash = i.block_hash, log_index = i.log_index,
              company_id = i.company_id, wallet_id = i.wallet_id, address_id = i.address_id, tx_hash = i.tx_hash,
              event_type = i.event_type, asset_key = i.asset_key, amount = i.amount,
              from_address = i.from_address, to_address = i.to_address, extra = i.extra,
              status = case when t.status = 'confirmed' then 'confirmed' else 'pending' end,
              reason = i.reason, confirmations = i.confirmations, seen_in_block = true, updated_at = now()
         from input i
        where i.transfer_id is not null and t.id = i.transfer_id and t.created_at = i.key_created_at
          and (t.status = 'pending' or (t.status = 'rejected' and t.reason in ('reorg', 'mempool_dropped'))
               or (t.status = 'confirmed' and t.block_number is null))
       returning t.*, false as inserted
     )`
    : ', reattached as (select t.*, false as inserted from transfers t where false)';
  const { rows: out } = await trx.raw(
    `with input as (
       select * from unnest(?::int[], ?::int[], ?::int[], ?::text[], ?::text[], ?::int[], ?::int[], ?::text[], ?::text[], ?::numeric[], ?::text[], ?::text[], ?::jsonb[],
                            ?::bigint[], ?::text[], ?::int[], ?::bigint[], ?::timestamptz[], ?::text[])
         with ordinality as i(company_id, wallet_id, address_id, tx_hash, tx_key, event_index, log_index, event_type, asset_key, amount, from_address, to_address, extra,
                              block_number, block_hash, confirmations, transfer_id, key_created_at, reason, ord)
     ), retracted as (
       select t.tx_key, t.event_index from transfers t
       join input i on i.transfer_id = t.id and i.key_created_at = t.created_at
       where t.status = 'rejected' and t.reason in ('reorg', 'mempool_dropped')
     ), added as (
       insert into transfers (company_id, wallet_id, address_id, chain, network, tx_hash, tx_key, event_index, log_index, direction, event_type,
                              asset_key, amount, from_address, to_address, block_number, block_hash, status, reason, confirmations, seen_in_block, extra)
       select company_id, wallet_id, address_id, ?, ?, tx_hash, tx_key, event_index, log_index, 'incoming', event_type,
              asset_key, amount, from_address, to_address, block_number, block_hash, 'pending', reason, confirmations, ?::boolean, extra
       from input where transfer_id is null order by ord
       returning *, true as inserted
     )${reattach}, written as (
       select * from added union all select * from reattached
     )
     select w.*, (w.inserted or r.tx_key is not null) as announce
     from written w left join retracted r on r.tx_key = w.tx_key and r.event_index = w.event_index`,
    [
      rows.map((r) => r.address.company_id),
      rows.map((r) => r.address.wallet_id),
      rows.map((r) => r.address.id),
      rows.map((r) => r.t.txHash),
      rows.map((r) => r.t.txKey ?? r.t.txHash),
      rows.map((r) => r.t.eventIndex),
      rows.map((r) => r.t.logIndex ?? null),
      rows.map((r) => r.t.eventType),
      rows.map((r) => r.t.assetKey),
      rows.map((r) => r.t.amount.toString()),
      rows.map((r) => r.t.from ?? null),
      rows.map((r) => r.address.address),
      rows.map((r) => (r.t.extra ? JSON.stringify(r.t.extra) : null)),
      rows.map((r) => (r.block ? r.block.number.toString() : null)),
      rows.map((r) => (r.block ? r.block.hash : null)),
      rows.map((r) => (r.block ? Math.max(1, r.confirmations) : 0)),
      rows.map((r) => keyed.get(identity(r.t))?.transfer_id ?? null),
      rows.map((r) => keyed.get(identity(r.t))?.created_at ?? null),
      rows.map((r) => r.t.held ?? null),
      k.chain,
      k.network,
      inBlock,
    ] as unknown as readonly Knex.RawBinding[],
  );
  const order = new Map(rows.map((r, i) => [identity(r.t), i]));
  const at = (r: { tx_key: string; event_index: number }) => order.get(`${r.tx_key}:${r.event_index}`) ?? 0;
  return (out as (TransferRow & { tx_key: string; announce: boolean })[])
    .filter((r) => r.announce)
    .sort((a, b) => at(a) - at(b))
    .map(({ announce: _a, inserted: _i, ...row }: TransferRow & { announce: boolean; inserted?: boolean }) => ({
      row: row as TransferRow,
      asset: assets.get(row.asset_key) as AssetRef,
    }));
}

/** A transfer's identity within its chain: the transaction key (the hash unless the plugin says otherwise) and the event index. */
const identity = (t: DetectedTransfer): string => `${t.txKey ?? t.txHash}:${t.eventIndex}`;
