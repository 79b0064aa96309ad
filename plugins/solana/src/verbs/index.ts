import { type WithdrawalVerbs, refusingUnreadableSigned } from '@walletd/plugin-kit';
import { broadcastSolanaWithdrawal } from './broadcast';
import { buildSolanaWithdrawal } from './build';
import { checkSolanaIntent } from './checkIntent';
import { checkSignedSolanaWithdrawal } from './checkSigned';
import { quoteSolanaFee } from './quoteFee';
import { signSolanaWithdrawal } from './sign';
import type { SolanaReader } from '../reader';
import { verifySolanaWithdrawal } from './verify';

/**
 * SOL and SPL withdrawals, one recipient each, through the five verbs.
 *
 * - **Validity**: a recent blockhash (`confirmed`); the transaction can land until the block
 *   height passes its `lastValidBlockHeight` (kept in the payload). `verify` answers `rejected`
 *   `expired` once the node's `finalized` block height is past it and the signature is unknown.
 *   `expiresAt.height` is in the follower's unit, slots: the earliest slot at which the blockhash
 *   can have expired (the slot of the blockhash's answer plus the blocks it had left; a slot makes
 *   at most one block), so the tracker re-sends a missing transaction only while it surely can
 *   still land, and never after.
 * - **Fees**: 5 000 lamports a signature plus a priority fee (the 75th percentile of recent fees
 *   on the written accounts, capped) for a fixed compute-unit limit; `fee` is that bound plus the
 *   rent of the recipient's associated token account when the transaction creates it. `verify`
 *   reports the exact `meta.fee` plus that rent when it was paid.
 * - **Rent**: a SOL withdrawal leaves the source at least its rent-exempt minimum; a new recipient
 *   account must receive at least its own.
 * - **Fee payer** (capability `feePayer`): a SOL withdrawal's source pays its own fee. A token
 *   withdrawal's fee (and the new account's rent) is paid by the first of the intent's sources that
 *   can: the source itself when it holds the SOL, otherwise the wallet's other addresses in
 *   derivation order (the service lists them after the chosen source), so a deposit address that
 *   holds only tokens is paid for by the wallet's primary address. Both sign; `sourceAddresses` is
 *   `[source, feePayer]`.
 * - **Sweeps** (`quoteFee`): a sweep rule's token sweep lists the wallet's gas station as the only
 *   other source, so the station is the fee payer of a deposit address holding no SOL (no top-up);
 *   a SOL sweep may empty its source to exactly 0 lamports (the account closes).
 * - Concurrent withdrawals need no nonce; two identical ones within one blockhash would be one
 *   transaction, so a build never repeats the message of an in-flight withdrawal (its compute-unit
 *   limit goes up by one until it differs).
 */
export function createSolanaWithdrawals(): WithdrawalVerbs<SolanaReader> {
  return refusingUnreadableSigned('Solana transaction', {
    checkIntent: checkSolanaIntent,
    build: buildSolanaWithdrawal,
    quoteFee: quoteSolanaFee,
    sign: signSolanaWithdrawal,
    checkSigned: checkSignedSolanaWithdrawal,
    broadcast: broadcastSolanaWithdrawal,
    verify: verifySolanaWithdrawal,
  });
}
