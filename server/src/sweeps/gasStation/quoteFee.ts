import { type AssetRef, BaseError, type Chain } from '@walletd/core';
import type { Common } from '../../platform/context';
import type { WalletRow } from '../../http/scope';
import { chainAccess } from '../../withdrawals/intent';
import { onNode } from '../../withdrawals/prepare';

type Wallet = Pick<WalletRow, 'chain' | 'network'>;
type Ask = Pick<Common, 'config' | 'plugins'>;

/**
 * One of the plugin's optional quoting verbs for a withdrawal of `amount` of `asset` from `from`
 * (and `payer`, where another account pays the fee) to `to`, asked on the wallet's node; undefined
 * where the plugin has no such verb.
 */
async function askPlugin(
  common: Ask,
  wallet: Wallet,
  verb: 'quoteFee' | 'keptOnSource',
  intent: { asset: AssetRef; from: string; to: string; amount: bigint; payer?: string },
): Promise<bigint | undefined> {
  const access = chainAccess(common.config, common.plugins, wallet.chain, wallet.network);
  const ask = access.verbs[verb]?.bind(access.verbs);
  if (!ask) return undefined;
  const reader = access.readers.readerFor(access.settings);
  const { asset, from, to, amount, payer } = intent;
  return onNode(wallet.chain, wallet.network, () =>
    ask(
      { chain: wallet.chain as Chain, network: wallet.network, asset, outputs: [{ to, amount }], sources: payer ? [from, payer] : [from] },
      reader,
    ),
  );
}

/**
 * The fee cap a withdrawal of `amount` of `asset` from `from` to `to` would carry now, as the
 * plugin's `build` sets it but without asking that `from` can pay it (the point of a top-up).
 */
export async function quoteFee(
  common: Ask,
  wallet: Wallet,
  asset: AssetRef,
  from: string,
  to: string,
  amount: bigint,
  /** Where the chain allows it: the fee payer, when not `from` (the station signs too). */
  payer?: string,
): Promise<bigint> {
  const fee = await askPlugin(common, wallet, 'quoteFee', { asset, from, to, amount, payer });
  if (fee === undefined) throw new BaseError('unprocessable', `${wallet.chain} cannot quote a fee for a gas top-up`);
  return fee;
}

/**
 * The native coin the chain makes `from` keep after such a withdrawal (an existential deposit),
 * 0 where the plugin names none: a native sweep leaves it, a top-up brings the address up to it.
 * No margin on it: it does not move between the top-up and the sweep.
 */
export async function keptOnSource(common: Ask, wallet: Wallet, asset: AssetRef, from: string, to: string): Promise<bigint> {
  return (await askPlugin(common, wallet, 'keptOnSource', { asset, from, to, amount: 1n })) ?? 0n;
}

/** The top-up for a quoted fee: the fee plus the margin (`TOP_UP_MARGIN_PERCENT`), in the native asset. */
export const withMargin = (fee: bigint, marginPercent: bigint): bigint => (fee * (100n + marginPercent) + 99n) / 100n;
