import type { AssetRef, ConfirmDecision, Db, DetectResult, DetectedTransfer, PendingTransfer } from '@walletd/core';
import type { Knex } from 'knex';
import { withoutOwnMovements } from './ownMovements';
import type { Fence } from './chainLease';
import { type TransferRow, recordDepositEvent } from './depositEvents';

export interface ChainKey {
  chain: string;
  network: string;
}

export interface Cursor {
  height: bigint;
  hash: string | null;
}

export async function readCursor(db: Db, k: ChainKey): Promise<Cursor | null> {
  const row = await db('chain_cursors').where(k).first('height', 'hash');
  return row ? { height: BigInt(row.height), hash: row.hash } : null;
}

export async function recentHash(db: Db, k: ChainKey, height: bigint): Promise<string | null> {
  const row = await db('recent_blocks')
    .where({ ...k, height: height.toString() })
    .first('hash');
  return row?.hash ?? null;
}

/**
 * One block, one transaction: its transfers to company addresses, a `deposit.detected` event for
 * each transfer seen for the first time, the block in the recent window, the cursor. A transfer
 * seen again (a rescan, or re-inclusion after a reorg) is re-attached to its new block and
 * announces nothing new.
 */
export async function persistBlock(
  db: Db,
  k: ChainKey,
  result: DetectResult,
  assets: Map<string, AssetRef>,
  window: number,
  head: bigint,
  /** false for a rescan: record transfers and events only, never move the live cursor. */
  advanceCursor = true,
  /** The indexer's lease check (see chainLease.ts): an indexer that lost the chain writes nothing. */
  fence?: Fence,
): Promise<number> {
  const { block } = result;
  return db.transaction(async (trx) => {
    await fence?.(trx);
    const transfers = await withoutOwnMovements(trx, k, result.transfers);
    let detected = 0;
    if (transfers.length > 0) {
      const byKey = await addressesFor(trx, k, transfers);
      // Transfers a reorg retracted whose transaction is mined again: they come back as pending
      // and are announced again (deposit.detected), so a re-included deposit is never lost.
      const retracted = new Set(
        (
          (await trx('transfers')
            .where({ ...k, status: 'rejected' })
            .whereIn('reason', ['reorg', 'mempool_dropped'])
            .whereIn('tx_hash', [...new Set(transfers.map((t) => t.txHash))])
            .select('tx_hash', 'event_index')) as { tx_hash: string; event_index: number }[]
        ).map((r) => `${r.tx_hash}:${r.event_index}`),
      );
      const confirmations = Number(head - block.number + 1n);
      for (const t of transfers) {
        const address = byKey.get(t.toKey);
        const asset = assets.get(t.assetKey);
        if (!address || !asset) continue;
        const { rows } = await trx.raw(
          `insert into transfers (company_id, wallet_id, address_id, chain, network, tx_hash, event_index, log_index, direction, event_type,
                                  asset_key, amount, from_address, to_address, block_number, block_hash, status, confirmations, extra)
           values (?, ?, ?, ?, ?, ?, ?, ?, 'incoming', ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)
           on conflict (chain, network, tx_hash, event_index) do update
             set block_number = excluded.block_number, block_hash = excluded.block_hash, log_index = excluded.log_index,
                 status = 'pending', reason = null, confirmations = excluded.confirmations, seen_in_block = true, updated_at = now()
             where transfers.status = 'pending' or (transfers.status = 'rejected' and transfers.reason in ('reorg', 'mempool_dropped'))
           returning *, (xmax = 0) as inserted`,
          [
            address.company_id,
            address.wallet_id,
            address.id,
            k.chain,
            k.network,
            t.txHash,
            t.eventIndex,
            t.logIndex ?? null,
            t.eventType,
            t.assetKey,
            t.amount.toString(),
            t.from ?? null,
            address.address,
            block.number.toString(),
            block.hash,
            Math.max(1, confirmations),
            t.extra ? JSON.stringify(t.extra) : null,
          ],
        );
        const row = rows[0] as (TransferRow & { inserted: boolean }) | undefined;
        if (row && (row.inserted || retracted.has(`${t.txHash}:${t.eventIndex}`))) {
          await recordDepositEvent(trx, 'deposit.detected', row, asset);
          detected++;
        }
      }
    }
    if (!advanceCursor) return detected;
    await trx('recent_blocks')
      .insert({ ...k, height: block.number.toString(), hash: block.hash, parent_hash: block.parentHash })
      .onConflict(['chain', 'network', 'height'])
      .merge();
    await trx('recent_blocks')
      .where(k)
      .andWhere('height', '<=', (block.number - BigInt(window)).toString())
      .delete();
    await writeCursor(trx, k, block.number, block.hash);
    return detected;
  });
}

type AddressRow = { id: number; match_key: string; address: string; wallet_id: number; company_id: number };

/** The company addresses the transfers pay, by match key (the exact check after the worker's set). */
async function addressesFor(trx: Knex.Transaction, k: ChainKey, transfers: DetectedTransfer[]): Promise<Map<string, AddressRow>> {
  const keys = [...new Set(transfers.map((t) => t.toKey))];
  const rows = (await trx('addresses as a')
    .join('wallets as w', 'w.id', 'a.wallet_id')
    .where({ 'a.chain': k.chain, 'a.network': k.network })
    .whereIn('a.match_key', keys)
    .select('a.id', 'a.match_key', 'a.address', 'a.wallet_id', 'a.company_id')) as AddressRow[];
  return new Map(rows.map((a) => [a.match_key, a]));
}

/**
 * Deposits seen in the node's mempool: recorded pending with 0 confirmations and no block, and
 * announced (`deposit.detected`) the first time only. Never credited: a block confirms them later.
 */
export async function persistMempool(
  db: Db,
  k: ChainKey,
  detectedTransfers: DetectedTransfer[],
  assets: Map<string, AssetRef>,
  fence?: Fence,
): Promise<number> {
  if (detectedTransfers.length === 0) return 0;
  return db.transaction(async (trx) => {
    await fence?.(trx);
    const transfers = await withoutOwnMovements(trx, k, detectedTransfers);
    const byKey = await addressesFor(trx, k, transfers);
    let detected = 0;
    for (const t of transfers) {
      const address = byKey.get(t.toKey);
      const asset = assets.get(t.assetKey);
      if (!address || !asset) continue;
      const [row] = (await trx('transfers')
        .insert({
          company_id: address.company_id,
          wallet_id: address.wallet_id,
          address_id: address.id,
          ...k,
          tx_hash: t.txHash,
          event_index: t.eventIndex,
          log_index: t.logIndex ?? null,
          direction: 'incoming',
          event_type: t.eventType,
          asset_key: t.assetKey,
          amount: t.amount.toString(),
          from_address: t.from ?? null,
          to_address: address.address,
          status: 'pending',
          confirmations: 0,
          seen_in_block: false,
          extra: t.extra ? JSON.stringify(t.extra) : null,
        })
        .onConflict(['chain', 'network', 'tx_hash', 'event_index'])
        .ignore()
        .returning('*')) as TransferRow[];
      if (row) {
        await recordDepositEvent(trx, 'deposit.detected', row, asset);
        detected++;
      }
    }
    return detected;
  });
}

async function writeCursor(trx: Knex.Transaction, k: ChainKey, height: bigint, hash: string | null): Promise<void> {
  await trx('chain_cursors')
    .insert({ ...k, height: height.toString(), hash, updated_at: trx.fn.now() })
    .onConflict(['chain', 'network'])
    .merge();
}

/**
 * Rewinds to the common ancestor: blocks above it leave the window; their pending transfers are
 * detached (block unknown) until they are seen again or the follower decides they are gone.
 * Confirmed transfers in those blocks are not touched: a reorg deeper than the confirmation
 * threshold is logged loudly by the caller and needs a person.
 */
export async function rewindTo(
  db: Db,
  k: ChainKey,
  ancestor: bigint,
  ancestorHash: string,
  fence?: Fence,
): Promise<{ detached: number; confirmedAbove: number }> {
  return db.transaction(async (trx) => {
    await fence?.(trx);
    const above = ancestor.toString();
    const detached = await trx('transfers')
      .where(k)
      .andWhere('block_number', '>', above)
      .andWhere('status', 'pending')
      .update({ block_number: null, block_hash: null, updated_at: trx.fn.now() });
    const [{ n }] = (await trx('transfers')
      .where(k)
      .andWhere('block_number', '>', above)
      .andWhere('status', 'confirmed')
      .count('* as n')) as [{ n: number }];
    await trx('recent_blocks').where(k).andWhere('height', '>', above).delete();
    await writeCursor(trx, k, ancestor, ancestorHash);
    return { detached, confirmedAbove: Number(n) };
  });
}

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
    const candidates = (await trx('transfers')
      .where(k)
      .whereNull('block_number')
      .andWhere('status', 'pending')
      .whereIn('asset_key', [...assets.keys()])
      .select('id', 'tx_hash')) as { id: number; tx_hash: string }[];
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
    for (const row of rows) {
      const asset = assets.get(row.asset_key);
      if (asset) await recordDepositEvent(trx, 'deposit.rejected', row, asset);
    }
    return rows.length;
  });
}

/** Pending transfers of a chain/network as the plugin's `confirm` sees them. */
export async function pendingTransfers(db: Db, k: ChainKey): Promise<PendingTransfer[]> {
  const rows = (await db('transfers').where(k).andWhere('status', 'pending').select('id', 'block_number')) as {
    id: number;
    block_number: number | null;
  }[];
  return rows.map((r) => ({ id: r.id, blockNumber: r.block_number === null ? null : BigInt(r.block_number) }));
}

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
