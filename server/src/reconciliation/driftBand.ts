import type { ChainPlugin } from '@walletd/core';

/** What the ledger knows about one scope (an account, or a pooled wallet) and asset, in base units. */
export interface LedgerFigures {
  /** Credited: confirmed deposits and internal movements in, minus confirmed payouts and fees paid. */
  indexed: bigint;
  /** Deposits detected, not final: the node may already count them. */
  pending: bigint;
  /** Amounts and fee caps of withdrawals signed or broadcast from here: the node may already have taken them. */
  inFlight: bigint;
  /** Withdrawals of the same wallet in flight toward here (a sweep, a top-up): the node may already show them. */
  incomingInFlight: bigint;
}

/** Differences a chain makes that no row records, tolerated on top of the ledger's own figures. */
export interface KnownCauses {
  /** The node may read this much lower than the ledger explains. */
  below: bigint;
  /** Why, in words (docs/guide/reconciliation.md). */
  why: string;
}

/**
 * Per chain, what the rows cannot know, as the chain's plugin declares it (`unrecordedDebit`, e.g.
 * TON's storage fees). Reserves, rent and existential deposits are not here: the comparison reads
 * the node's total (spendable plus the chain's minimum), which the deposits that paid that minimum
 * explain. Fees in flight are `inFlight` (the fee caps of what was sent).
 */
export function knownCauses(plugin: Pick<ChainPlugin, 'chains'>, chain: string): KnownCauses {
  const declared = plugin.chains.find((c) => c.chain === chain)?.unrecordedDebit;
  return declared ? { below: declared.below, why: declared.why } : { below: 0n, why: '' };
}

/**
 * The drift: how far the node's figure lies outside the band the ledger explains, signed (positive:
 * the node holds more than walletd knows, e.g. a deposit the indexer skipped; negative: less, e.g.
 * a payout walletd did not make). 0 inside the band:
 *   indexed − inFlight − known.below  ≤  onchain  ≤  indexed + pending + incomingInFlight
 */
export function driftOf(f: LedgerFigures, onchain: bigint, known: KnownCauses): bigint {
  const high = f.indexed + f.pending + f.incomingInFlight;
  const low = f.indexed - f.inFlight - known.below;
  if (onchain > high) return onchain - high;
  if (onchain < low) return onchain - low;
  return 0n;
}
