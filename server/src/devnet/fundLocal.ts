import { toBaseUnits } from '@walletd/core';
import type { LocalChainInfo } from '@walletd/devchains';
import { loadPlugins } from '../plugins';
import { describeFetchError } from './devnetRpc';

/** The method each in-process adapter serves for `walletd dev fund` (never part of the chain's own API). */
const FUND_METHOD = 'walletd_fund';

/** Base units of `amount` in the local chain's native coin or in one of its tokens (by symbol). */
export function localAmount(info: LocalChainInfo, amount: string, token?: string): { units: bigint; asset: string } {
  if (token === undefined) {
    // The native coin as the shipped plugin that serves the local chain declares it.
    const native = loadPlugins().chainTable().network(info.chain, info.network)?.native;
    if (!native) throw new Error(`${info.chain}/${info.network} is not a known network`);
    return { units: toBaseUnits(amount, native.decimals, { allowZero: false }), asset: native.symbol };
  }
  const t = info.tokens.find((x) => x.symbol.toUpperCase() === token.toUpperCase());
  if (!t) {
    throw new Error(
      `the local ${info.chain} chain has no token ${token}; it has: ${info.tokens.map((x) => x.symbol).join(', ') || 'none'}`,
    );
  }
  return { units: toBaseUnits(amount, t.decimals, { allowZero: false }), asset: t.symbol };
}

/** Funds `address` on a running local chain through its adapter; returns the transaction's id on the chain. */
export async function fundLocal(info: LocalChainInfo, address: string, units: bigint, token?: string): Promise<string> {
  let res: Response;
  try {
    // TON's adapter speaks toncenter's REST (a path per method), the others JSON-RPC.
    const rest = info.chain === 'ton';
    const params = [address, units.toString(), token ?? null];
    res = await fetch(rest ? `${info.rpcUrl}/${FUND_METHOD}` : info.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(rest ? { params } : { jsonrpc: '2.0', id: 1, method: FUND_METHOD, params }),
    });
  } catch (e) {
    throw new Error(describeFetchError(info.rpcUrl, e), { cause: e });
  }
  const body = (await res.json()) as { result?: string; error?: string | { message: string } };
  if (body.error) {
    const why = typeof body.error === 'string' ? body.error : body.error.message;
    throw new Error(`the local ${info.chain} chain refused the funding: ${why}`);
  }
  return body.result as string;
}
