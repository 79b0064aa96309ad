import type { UnsignedWithdrawal, VerifyContext, WithdrawalVerdict } from '@walletd/plugin-kit';
import { deliveredOf } from '../detect';
import { payloadOf } from '../payload';
import { sameAmount } from '../paysIntent';
import type { XrpReader } from '../reader';
import { recipientOf } from '../recipient';

/** Confirmed only for a validated, successful Payment from the source that delivered the intent exactly; else pending, or expired past LastLedgerSequence. */
export async function verifyXrpWithdrawal(
  unsigned: UnsignedWithdrawal,
  txHash: string,
  reader: XrpReader,
  _context?: VerifyContext,
): Promise<WithdrawalVerdict> {
  const { tx, validatedAtBuild } = payloadOf(unsigned);
  const validated = await reader.validatedIndex();
  const lastLedger = BigInt(tx.LastLedgerSequence);
  const range = validated > lastLedger ? { min: BigInt(validatedAtBuild), max: lastLedger } : undefined;
  const found = await reader.tx(txHash, range);
  if (!found.found) {
    // A validated ledger past LastLedgerSequence without it: it can never be included.
    if (range && found.searchedAll) return { status: 'rejected', confirmations: 0, reason: 'expired' };
    return { status: range ? 'pending' : 'missing', confirmations: 0 };
  }
  if (!found.validated || found.ledgerIndex === undefined || !found.meta) return { status: 'pending', confirmations: 0 };
  const fee = BigInt(String(found.tx?.Fee ?? tx.Fee));
  const blockNumber = found.ledgerIndex;
  const confirmations = Number(validated - blockNumber + 1n);
  if (found.meta.TransactionResult !== 'tesSUCCESS')
    return { status: 'rejected', confirmations, fee, blockNumber, reason: 'failed_on_chain' };
  const r = recipientOf(unsigned.intent);
  const paid = found.tx ?? {};
  // Another account's transaction (or not a Payment) under this hash is not this withdrawal.
  if (paid.TransactionType !== 'Payment' || paid.Account !== (unsigned.sourceAddresses[0] ?? unsigned.intent.sources[0]))
    return { status: 'pending', confirmations: 0, blockNumber };
  // Another destination, tag or amount: mined, but not this intent. Pending like every chain
  // (contract `verify`): the reservation stays, and rejecting would release funds that moved.
  if (
    paid.Destination !== r.account ||
    paid.DestinationTag !== r.tag ||
    // delivered_amount (absent only in ledgers before 2014: then Amount, unless partial).
    !sameAmount(unsigned.intent, r.amount, deliveredOf(paid as never, found.meta as never))
  )
    return { status: 'pending', confirmations: 0, blockNumber };
  return { status: 'confirmed', confirmations, fee, blockNumber };
}
