import { describeFetchError } from './devnetRpc';
import type { FundRequest, LocalChainInfo } from './localChain';
import { BaseError } from '@walletd/core';

/** The method each in-process adapter serves for `walletd dev fund` (never part of the chain's own API). */
export const FUND_METHOD = 'walletd_fund';

/**
 * Funds through an in-process adapter's `walletd_fund`: JSON-RPC, or a REST path for an adapter
 * that speaks REST (toncenter's). The adapter makes a real transfer or mint in the engine.
 */
export async function fundThroughAdapter(info: LocalChainInfo, request: FundRequest, style: 'json-rpc' | 'rest'): Promise<string> {
  const params = [request.address, request.amount.toString(), request.token ?? null];
  let res: Response;
  try {
    res = await fetch(style === 'rest' ? `${info.rpcUrl}/${FUND_METHOD}` : info.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(style === 'rest' ? { params } : { jsonrpc: '2.0', id: 1, method: FUND_METHOD, params }),
    });
  } catch (e) {
    throw new BaseError('devchain_failed', describeFetchError(info.rpcUrl, e), { cause: e, retriable: true });
  }
  const body = (await res.json()) as { result?: string; error?: string | { message: string } };
  if (body.error) {
    const why = typeof body.error === 'string' ? body.error : body.error.message;
    throw new BaseError('devchain_failed', `the local ${info.chain} chain refused the funding: ${why}`);
  }
  return body.result as string;
}
