import { type WithdrawalVerbs, refusingUnreadableSigned } from '@walletd/plugin-kit';
import { broadcastTonWithdrawal } from './broadcast';
import { buildTonWithdrawal } from './build';
import { checkTonIntent } from './checkIntent';
import { checkSignedTonWithdrawal } from './checkSigned';
import { tonFeeCap } from '../payload';
import { signTonWithdrawal } from './sign';
import type { TonReader } from '../reader';
import { verifyTonWithdrawal } from './verify';

export function createTonWithdrawals(): WithdrawalVerbs<TonReader> {
  return refusingUnreadableSigned('TON external message', {
    checkIntent: (intent) => {
      checkTonIntent(intent);
    },
    build: buildTonWithdrawal,
    // A fixed bound, whatever the wallet's state (an undeployed one deploys on this send).
    quoteFee: async (intent) => {
      checkTonIntent(intent);
      return tonFeeCap(intent.asset);
    },
    sign: signTonWithdrawal,
    checkSigned: checkSignedTonWithdrawal,
    broadcast: broadcastTonWithdrawal,
    verify: verifyTonWithdrawal,
  });
}
