import { BaseError, type WithdrawalIntent } from '@walletd/plugin-kit';
import { xrpBurnReason } from '../burnAddress';
import { recipientOf } from '../recipient';

/**
 * The refusals of an XRP Payment that need no ledger: the recipient's form and tag, the wallet's
 * own account (the ledger refuses a Payment to its sender; `r…:tag` of it is the same account),
 * and black-hole accounts. Returns the recipient for `build`.
 */
export function checkXrpIntent(intent: WithdrawalIntent): ReturnType<typeof recipientOf> {
  const r = recipientOf(intent);
  const burn = xrpBurnReason(r.account);
  if (burn) throw new BaseError('invalid_address', `${r.account} is ${burn}: no key controls it, so what is paid there is lost`);
  if (r.account === intent.sources[0]) throw new BaseError('validation_failed', 'an XRP Payment cannot pay its own sender');
  return r;
}
