import type { Db, PendingTransfer } from '@walletd/core';
import type { ChainKey } from './types';

/** Pending transfers of a chain/network as the plugin's `confirm` sees them. */
export async function pendingTransfers(db: Db, k: ChainKey): Promise<PendingTransfer[]> {
  const rows = (await db('transfers').where(k).andWhere('status', 'pending').select('id', 'block_number')) as {
    id: number;
    block_number: number | null;
  }[];
  return rows.map((r) => ({ id: r.id, blockNumber: r.block_number === null ? null : BigInt(r.block_number) }));
}
