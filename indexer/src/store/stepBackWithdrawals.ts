import { type WithdrawalRow, addHistory, recordEvent, withdrawalData } from '@walletd/core';
import type { Knex } from 'knex';
import type { ChainKey } from '../types';

/** The history line a reorg leaves when it takes a confirmed withdrawal back to `broadcast`. */
export const STEPPED_BACK = { reason: 'reorg', previousStatus: 'confirmed' } as const;

/**
 * Confirmed withdrawals mined above the common ancestor: their block left the chain, so the payout
 * is no longer paid. Each goes back to `broadcast` (block and confirmations unknown; the ledger's
 * triggers move its amount and fee cap from paid back to reserved), with a history line and a
 * `withdrawal.broadcast` event carrying `reason: "reorg"` and `previousStatus: "confirmed"`. The
 * tracker then judges it again: confirmed if the transaction lands again, `withdrawal.rejected`
 * (reason `reorg`) if its nonce or inputs went to another transaction. Returns their ids.
 */
export async function stepBackWithdrawals(trx: Knex.Transaction, k: ChainKey, ancestor: bigint): Promise<number[]> {
  const confirmed = (await trx('withdrawals')
    .where(k)
    .andWhere('status', 'confirmed')
    .andWhere('block_number', '>', ancestor.toString())
    .update({ status: 'broadcast', block_number: null, confirmations: 0, confirmed_at: null, updated_at: trx.fn.now() })
    .returning('*')) as WithdrawalRow[];
  // Issue 46: an on-chain cancel whose block left the chain no longer settles the withdrawal either
  // (its amount is reserved again, its fee no longer paid); the tracker judges all its transactions again.
  const cancelled = (await trx('withdrawals')
    .where(k)
    .andWhere({ status: 'rejected', reason: 'cancelled_onchain' })
    .andWhere('block_number', '>', ancestor.toString())
    .update({ status: 'broadcast', block_number: null, confirmations: 0, reason: null, fee: null, updated_at: trx.fn.now() })
    .returning('*')) as WithdrawalRow[];
  const rows = [...confirmed.map((r) => ({ r, from: 'confirmed' as const })), ...cancelled.map((r) => ({ r, from: 'rejected' as const }))];
  rows.sort((a, b) => Number(a.r.id) - Number(b.r.id));
  for (const { r: row, from } of rows) {
    const back = { ...STEPPED_BACK, previousStatus: from };
    await addHistory(trx, row.id, 'broadcast', back);
    await recordEvent(trx, {
      type: 'withdrawal.broadcast',
      chain: row.chain,
      network: row.network,
      companyId: row.company_id,
      walletId: row.wallet_id,
      data: { ...withdrawalData(row, 'broadcast'), ...back },
    });
  }
  return rows.map(({ r }) => Number(r.id));
}

/**
 * Of these broadcast withdrawals, those a reorg stepped back from `confirmed`: mined once, so a
 * transaction that can no longer land is rejected with reason `reorg` (the plugin's `verify` is told
 * `seenInBlock`), though their block is no longer known.
 */
export async function steppedBack(db: Knex | Knex.Transaction, ids: number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = (await db('withdrawal_history').whereIn('withdrawal_id', ids).andWhere('status', 'confirmed').distinct('withdrawal_id')) as {
    withdrawal_id: number | string;
  }[];
  return new Set(rows.map((r) => Number(r.withdrawal_id)));
}
