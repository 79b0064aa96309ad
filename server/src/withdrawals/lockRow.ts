import { BaseError, type WithdrawalRow } from '@walletd/core';
import type { Knex } from 'knex';

/** The withdrawal row, locked for the rest of the transaction; 404 when it does not exist. */
export async function lockRow(trx: Knex.Transaction, id: number): Promise<WithdrawalRow> {
  const row = (await trx('withdrawals').where({ id }).forUpdate().first()) as WithdrawalRow | undefined;
  if (!row) throw new BaseError('not_found', 'Withdrawal not found');
  return row;
}
