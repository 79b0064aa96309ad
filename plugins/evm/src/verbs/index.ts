import { type WithdrawalVerbs, refusingUnreadableSigned } from '@walletd/plugin-kit';
import { broadcastEvmWithdrawal } from './broadcast';
import { buildEvmWithdrawal } from './build';
import { checkEvmIntent } from './checkIntent';
import { checkSignedEvmWithdrawal } from './checkSigned';
import { quoteEvmFee } from './quoteFee';
import { replaceEvmWithdrawal } from './replace';
import { signEvmWithdrawal } from './sign';
import { verifyEvmWithdrawal } from './verify';

/**
 * The EVM withdrawal verbs, one per file: one recipient per transaction from the address holding
 * the funds, EIP-1559 fees (see build.ts).
 */
export function createEvmWithdrawals(): WithdrawalVerbs {
  return refusingUnreadableSigned('EVM transaction', {
    checkIntent: checkEvmIntent,
    build: buildEvmWithdrawal,
    quoteFee: quoteEvmFee,
    sign: signEvmWithdrawal,
    checkSigned: checkSignedEvmWithdrawal,
    broadcast: broadcastEvmWithdrawal,
    verify: verifyEvmWithdrawal,
    replace: replaceEvmWithdrawal,
  });
}
