import type { UnsignedWithdrawal } from '@walletd/plugin-kit';
import type { Knex } from 'knex';
import { type StoredUnsigned, type WithdrawalRow, unsignedFromRow } from './records';

/** One transaction a withdrawal broadcast on its nonce (migration 043): the original or a replacement. */
export interface AttemptRow {
  id: number;
  withdrawal_id: number;
  kind: 'original' | 'speed_up' | 'cancel';
  tx_hash: string;
  signed_tx: string;
  unsigned_tx: StoredUnsigned;
  fee_cap: string;
  created_at: Date;
}

/** A withdrawal's transactions, oldest first; empty while it was never replaced (the row holds its one). */
export async function loadAttempts(db: Knex | Knex.Transaction, withdrawalId: number): Promise<AttemptRow[]> {
  return (await db('withdrawal_attempts').where({ withdrawal_id: withdrawalId }).orderBy('id')) as AttemptRow[];
}

/**
 * What `verify` judges an attempt against: the withdrawal's intent with the attempt's payload, or
 * for a cancel, nothing paid to the source itself in the native asset.
 */
export function attemptUnsigned(row: WithdrawalRow, attempt: AttemptRow): UnsignedWithdrawal {
  const base = unsignedFromRow(row);
  const unsigned: UnsignedWithdrawal = { ...base, payload: attempt.unsigned_tx.payload, fee: BigInt(attempt.fee_cap) };
  if (attempt.kind !== 'cancel') return unsigned;
  const source = base.sourceAddresses[0] ?? row.from_address;
  return {
    ...unsigned,
    intent: { ...base.intent, asset: { key: '', symbol: '', decimals: 0, contractAddress: null }, outputs: [{ to: source, amount: 0n }] },
  };
}
