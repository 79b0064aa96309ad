import { type WithdrawalVerbs, refusingUnreadableSigned } from '@walletd/plugin-kit';
import type { UtxoReader } from '../reader';
import { broadcastUtxoWithdrawal } from './broadcast';
import { buildUtxoWithdrawal } from './build';
import { checkSignedUtxoWithdrawal } from './checkSigned';
import { consolidate } from './consolidate';
import { replaceUtxoWithdrawal } from './replace';
import { signUtxoWithdrawal } from './sign';
import { verifyUtxoWithdrawal } from './verify';

export type { UtxoTxPayload } from '../payload';
export { outputVsize } from '../spendableCoins';

/** The bitcoin-family withdrawal verbs, one per file: coin selection over the wallet's addresses (build.ts), PSBT signing, BIP-125 replacement (replace.ts). */
export function createUtxoWithdrawals(): WithdrawalVerbs {
  return refusingUnreadableSigned('bitcoin-family transaction', {
    consolidate: (request, reader, context) => consolidate(request, reader as UtxoReader, context),
    build: buildUtxoWithdrawal,
    sign: signUtxoWithdrawal,
    checkSigned: checkSignedUtxoWithdrawal,
    broadcast: broadcastUtxoWithdrawal,
    replace: replaceUtxoWithdrawal,
    verify: verifyUtxoWithdrawal,
  });
}
