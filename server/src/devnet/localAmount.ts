import { BaseError, toBaseUnits } from '@walletd/core';
import type { LocalChainInfo } from '@walletd/devchains/dist/localChain';
import { loadPlugins } from '../platform/plugins';

/** Base units of `amount` in the local chain's native coin or in one of its tokens (by symbol). */
export function localAmount(info: LocalChainInfo, amount: string, token?: string): { units: bigint; asset: string } {
  if (token === undefined) {
    // The native coin as the shipped plugin that serves the local chain declares it.
    const native = loadPlugins().chainTable().network(info.chain, info.network)?.native;
    if (!native) throw new BaseError('input_invalid', `${info.chain}/${info.network} is not a known network`);
    return { units: toBaseUnits(amount, native.decimals, { allowZero: false }), asset: native.symbol };
  }
  const t = info.tokens.find((x) => x.symbol.toUpperCase() === token.toUpperCase());
  if (!t) {
    throw new BaseError(
      'input_invalid',
      `the local ${info.chain} chain has no token ${token}; it has: ${info.tokens.map((x) => x.symbol).join(', ') || 'none'}`,
    );
  }
  return { units: toBaseUnits(amount, t.decimals, { allowZero: false }), asset: t.symbol };
}
