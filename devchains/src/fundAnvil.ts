import { DEVNET_FUNDER, tokenInterface } from './anvilDevnet';
import { rpc, waitMined } from './devnetRpc';
import type { FundRequest, LocalChainInfo } from './localChain';
import { BaseError } from '@walletd/core';

/**
 * `walletd dev fund` on the EVM devnet: ETH from anvil's funded account, or the devnet USDC minted
 * to the address (its mint is public). Waits for the block that holds it; returns its hash.
 */
export async function fundAnvil(info: LocalChainInfo, request: FundRequest): Promise<string> {
  const usdc = info.tokens[0];
  if (request.token !== undefined && (usdc === undefined || request.token.toUpperCase() !== usdc.symbol)) {
    throw new BaseError('input_invalid', `the devnet has one token: USDC (not ${request.token})`);
  }
  const tx =
    request.token !== undefined && usdc !== undefined
      ? { from: DEVNET_FUNDER, to: usdc.contract, data: tokenInterface.encodeFunctionData('mint', [request.address, request.amount]) }
      : { from: DEVNET_FUNDER, to: request.address, value: `0x${request.amount.toString(16)}` };
  const hash = await rpc<string>(info.rpcUrl, 'eth_sendTransaction', [tx]);
  await waitMined(info.rpcUrl, hash);
  return hash;
}
