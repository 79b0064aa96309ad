import { type WithdrawalVerbs, refusingUnreadableSigned } from '@walletd/plugin-kit';
import type { XrpReader } from '../reader';
import { broadcastXrpWithdrawal } from './broadcast';
import { buildXrpWithdrawal } from './build';
import { checkXrpIntent } from './checkIntent';
import { checkSignedXrpWithdrawal } from './checkSigned';
import { signXrpWithdrawal } from './sign';
import { verifyXrpWithdrawal } from './verify';

export * from '../payload';

/** The XRP withdrawal verbs, one per file: one Payment from the wallet's account, expiring at `LastLedgerSequence`. */
export function createXrpWithdrawals(): WithdrawalVerbs<XrpReader> {
  return refusingUnreadableSigned('XRP Ledger transaction', {
    checkIntent: (intent) => {
      checkXrpIntent(intent);
    },
    build: buildXrpWithdrawal,
    sign: signXrpWithdrawal,
    checkSigned: checkSignedXrpWithdrawal,
    broadcast: broadcastXrpWithdrawal,
    verify: verifyXrpWithdrawal,
  });
}
