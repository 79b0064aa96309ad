import { type WithdrawalRow, isBaseError } from '@walletd/core';
import type { Common } from '../platform/context';
import { broadcastWithdrawal, cancelWithdrawal } from '../withdrawals/broadcast';
import { signWithdrawal } from '../withdrawals/send';

/**
 * Takes a sweep (or gas top-up) withdrawal as far as it goes: a prepared one is signed, a signed one sent. Used
 * for a fresh sweep and, on every run, for the rule's sweeps a crash (or an approval) left
 * prepared or signed. A signature refused for funds (the fee rose since prepare, so amount plus
 * the new fee cap no longer fits) cancels it: the funds are freed and the next window sweeps anew.
 */
export async function carryOn(common: Common, row: WithdrawalRow): Promise<WithdrawalRow> {
  let cur = row;
  if (cur.status === 'prepared') {
    try {
      cur = await signWithdrawal(common, cur.id, null);
    } catch (e) {
      if (isBaseError(e) && e.code === 'insufficient_funds') await cancelWithdrawal(common, cur.id);
      throw e;
    }
  }
  if (cur.status === 'signed') cur = await broadcastWithdrawal(common, cur.id);
  return cur;
}
