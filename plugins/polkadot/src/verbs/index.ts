import { type WithdrawalVerbs, refusingUnreadableSigned } from '@walletd/plugin-kit';
import { broadcastPolkadotWithdrawal } from './broadcast';
import { buildPolkadotWithdrawal, keptOnPolkadotSource, quotePolkadotFee } from './build';
import { checkSignedPolkadotWithdrawal } from './checkSigned';
import type { PolkadotReader } from '../reader';
import { signPolkadotWithdrawal } from './sign';
import { verifyPolkadotWithdrawal } from './verify';

/**
 * Withdrawals of DOT (`balances.transferKeepAlive`: the source is never reaped, its existential
 * deposit stays out of what is spendable) and of allow-listed assets (`assets.transferKeepAlive`;
 * `assets.transfer` when the whole balance leaves, which keep-alive refuses),
 * signed with sr25519 at the source's `//index`. Valid for a mortal era of `ERA_PERIOD` blocks
 * counted from the finalized head; the nonce follows the wallet's in-flight withdrawals from the
 * same source; the fee bound is twice `TransactionPaymentApi_query_info`'s partial fee (the fee
 * multiplier moves between blocks), the exact fee comes from the block's events on `verify`.
 */
export function createPolkadotWithdrawals(): WithdrawalVerbs<PolkadotReader> {
  return refusingUnreadableSigned('Polkadot extrinsic', {
    build: buildPolkadotWithdrawal,
    quoteFee: quotePolkadotFee,
    keptOnSource: keptOnPolkadotSource,
    sign: signPolkadotWithdrawal,
    checkSigned: checkSignedPolkadotWithdrawal,
    broadcast: broadcastPolkadotWithdrawal,
    verify: verifyPolkadotWithdrawal,
  });
}
