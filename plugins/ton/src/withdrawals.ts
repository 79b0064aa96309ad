import { type WithdrawalVerbs, refusingUnreadableSigned } from '@walletd/plugin-kit';
import { broadcastTonWithdrawal } from './broadcast';
import { buildTonWithdrawal } from './build';
import { checkTonIntent } from './checkIntent';
import { checkSignedTonWithdrawal } from './checkSigned';
import { signTonWithdrawal } from './sign';
import type { TonReader } from './tonReader';
import { verifyTonWithdrawal } from './verify';

export function createTonWithdrawals(): WithdrawalVerbs<TonReader> {
  return refusingUnreadableSigned('TON external message', {
    checkIntent: (intent) => {
      checkTonIntent(intent);
    },
    build: buildTonWithdrawal,
    sign: signTonWithdrawal,
    checkSigned: checkSignedTonWithdrawal,
    broadcast: broadcastTonWithdrawal,
    verify: verifyTonWithdrawal,
  });
}
