import { BaseError, type WithdrawalIntent } from '@walletd/plugin-kit';
import { parseXrpDestination } from './addresses';

/** The one recipient, with the tag from the address (`r…:tag`, X-address) or the output; both must agree. */
export function recipientOf(intent: WithdrawalIntent): { account: string; tag?: number; amount: bigint; memo?: string } {
  const output = intent.outputs[0];
  if (!output || intent.outputs.length !== 1) throw new BaseError('validation_failed', 'an XRP Payment pays exactly one recipient');
  const d = parseXrpDestination(intent.network, output.to);
  if (!d) throw new BaseError('invalid_address', `"${output.to}" is not a valid XRP Ledger address for ${intent.network}`);
  if (d.tag !== undefined && output.destinationTag !== undefined && d.tag !== output.destinationTag)
    throw new BaseError('validation_failed', `the address carries destination tag ${d.tag} but destinationTag is ${output.destinationTag}`);
  const tag = d.tag ?? output.destinationTag;
  if (output.amount <= 0n) throw new BaseError('invalid_amount', 'the amount must be positive');
  return {
    account: d.account,
    ...(tag !== undefined ? { tag } : {}),
    amount: output.amount,
    ...(output.memo !== undefined ? { memo: output.memo } : {}),
  };
}
