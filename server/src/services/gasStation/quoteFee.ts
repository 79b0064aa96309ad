import { type AssetRef, BaseError, type Chain } from '@walletd/core';
import type { Common } from '../../context';
import type { WalletRow } from '../../http/scope';
import { chainAccess } from '../withdrawals/intent';
import { onNode } from '../withdrawals/prepare';

/**
 * The fee cap a withdrawal of `amount` of `asset` from `from` to `to` would carry now, as the
 * plugin's `build` sets it but without asking that `from` can pay it (the point of a top-up).
 */
export async function quoteFee(
  common: Pick<Common, 'config' | 'plugins'>,
  wallet: Pick<WalletRow, 'chain' | 'network'>,
  asset: AssetRef,
  from: string,
  to: string,
  amount: bigint,
  /** Solana: the fee payer, when not `from` (the station signs too). */
  payer?: string,
): Promise<bigint> {
  const access = chainAccess(common.config, common.plugins, wallet.chain, wallet.network);
  const quote = access.verbs.quoteFee?.bind(access.verbs);
  if (!quote) throw new BaseError('unprocessable', `${wallet.chain} cannot quote a fee for a gas top-up`);
  const reader = access.readers.readerFor(access.settings);
  return onNode(wallet.chain, wallet.network, () =>
    quote(
      { chain: wallet.chain as Chain, network: wallet.network, asset, outputs: [{ to, amount }], sources: payer ? [from, payer] : [from] },
      reader,
    ),
  );
}

/**
 * The native coin the chain makes `from` keep after such a withdrawal (an existential deposit),
 * 0 where the plugin names none: a native sweep leaves it, a top-up brings the address up to it.
 * No margin on it: it does not move between the top-up and the sweep.
 */
export async function keptOnSource(
  common: Pick<Common, 'config' | 'plugins'>,
  wallet: Pick<WalletRow, 'chain' | 'network'>,
  asset: AssetRef,
  from: string,
  to: string,
): Promise<bigint> {
  const access = chainAccess(common.config, common.plugins, wallet.chain, wallet.network);
  const kept = access.verbs.keptOnSource?.bind(access.verbs);
  if (!kept) return 0n;
  const reader = access.readers.readerFor(access.settings);
  return onNode(wallet.chain, wallet.network, () =>
    kept({ chain: wallet.chain as Chain, network: wallet.network, asset, outputs: [{ to, amount: 1n }], sources: [from] }, reader),
  );
}

/** The top-up for a quoted fee: the fee plus the margin (`TOP_UP_MARGIN_PERCENT`), in the native asset. */
export const withMargin = (fee: bigint, marginPercent: bigint): bigint => (fee * (100n + marginPercent) + 99n) / 100n;
