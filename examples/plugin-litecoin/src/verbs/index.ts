import { type WithdrawalVerbs, refusingUnreadableSigned } from '@walletd/plugin-kit';
import type { LitecoinReader } from '../reader';
import { broadcast } from './broadcast';
import { build } from './build';
import { checkSigned } from './checkSigned';
import { sign } from './sign';
import { verify } from './verify';

/**
 * The withdrawal verbs, one per file, wrapped in the kit's `refusingUnreadableSigned`: bytes
 * `checkSigned` cannot read are the caller's 422, never a 500.
 */
export function createLitecoinWithdrawals(): WithdrawalVerbs<LitecoinReader> {
  return refusingUnreadableSigned('litecoin transaction', { build, sign, checkSigned, broadcast, verify });
}
