import { type Db, type PendingTransfer, type PreparedStatement, runPrepared } from '@walletd/core';
import type { ChainKey } from '../../types';

/**
 * Every round of every chain runs this. By name (runPrepared), so PostgreSQL plans it once per
 * connection: `transfers` is partitioned by month and has no month to prune to here, so each plan
 * is one branch per month kept; planned afresh each round that was 1.4–7 ms against 0.4 ms of
 * execution, growing by a branch a month (bench/README.md, "On the merged tree").
 */
const PENDING: PreparedStatement = {
  name: 'walletd_pending_transfers',
  // A pending row with a reason is held (`balance_mismatch`, holdUnbacked.ts): never confirmed by depth.
  text: `select id, block_number from transfers where chain = $1 and network = $2 and status = 'pending' and reason is null`,
  // PostgreSQL's own rule kept planning it afresh on a big history (the bench's 100k: 3 ms a round,
  // 0.5 ms of it execution): its generic plan is right for every chain, so it always runs on it.
  genericPlan: true,
};

/** Pending transfers of a chain/network as the plugin's `confirm` sees them. */
export async function pendingTransfers(db: Db, k: ChainKey): Promise<PendingTransfer[]> {
  const rows = await runPrepared<{ id: number; block_number: number | null }>(db, PENDING, [k.chain, k.network]);
  return rows.map((r) => ({ id: r.id, blockNumber: r.block_number === null ? null : BigInt(r.block_number) }));
}
