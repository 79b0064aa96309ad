import { type WithdrawalVerbs, refusingUnreadableSigned } from '@walletd/plugin-kit';
import { buildTronWithdrawal, quoteTronFee } from './build';
import { broadcastTronWithdrawal } from './broadcast';
import { checkTronIntent } from './checkIntent';
import { checkSignedTronWithdrawal } from './checkSigned';
import { signTronWithdrawal } from './sign';
import type { TronReader } from '../reader';
import { verifyTronWithdrawal } from './verify';

/**
 * One recipient per transaction, from the first of `sources` (Tron has no nonce: what keeps two
 * withdrawals apart is their content and timestamp). `build` makes the whole raw_data here from the
 * intent (never from a node-built transaction), referencing the head block and expiring
 * `EXPIRATION_MS` after it. Token withdrawals need TRX for energy at the paying address: `build`
 * refuses with 422 `insufficient_funds` naming the address and the shortfall; a sweep rule's gas
 * station sends it what `quoteFee` quotes first (TRX burned for energy: no energy delegation).
 */
export function createTronWithdrawals(): WithdrawalVerbs<TronReader> {
  return refusingUnreadableSigned('Tron transaction', {
    checkIntent: checkTronIntent,
    build: buildTronWithdrawal,
    quoteFee: quoteTronFee,
    sign: signTronWithdrawal,
    checkSigned: checkSignedTronWithdrawal,
    broadcast: broadcastTronWithdrawal,
    verify: verifyTronWithdrawal,
  });
}
