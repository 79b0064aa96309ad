import type { LocalChain } from './localChain';
import { startSolanaSvm } from './solanaSvm';
import { BaseError } from '@walletd/core';

/** The method `walletd dev fund` calls on the playground's Solana adapter (not part of Solana's RPC). */
export const SOLANA_FUND_METHOD = 'walletd_fund';

/**
 * Solana on litesvm for `walletd serve` (solana/localnet): the JSON-RPC adapter on `port`, a slot
 * every 400 ms (finalized 2 blocks behind), and a Devnet USDC mint (6 decimals) whose authority
 * is the engine's faucet. litesvm keeps its accounts in memory only: each start is a new chain.
 */
export async function startLocalSolana(options: { port: number }): Promise<LocalChain> {
  let usdc = '';
  const node = await startSolanaSvm({
    finalityDepth: 2,
    port: options.port,
    extra: {
      // [address, base units as a decimal string, token symbol?]: a real transfer or mint, in a block.
      [SOLANA_FUND_METHOD]: async (params) => {
        const [to, amount, token] = params as [string, string, string | null | undefined];
        if (token == null) return node.sendSol(to, BigInt(amount));
        if (token.toUpperCase() !== 'USDC')
          throw new BaseError('input_invalid', `the local Solana chain has one token: USDC (not ${token})`);
        return node.mintTo(usdc, to, BigInt(amount), 6);
      },
    },
  });
  usdc = await node.createMint(6);
  const ticker = setInterval(() => node.produceBlocks(1), 400);
  ticker.unref();
  const genesis = await (await fetch(node.url, rpcBody('getGenesisHash'))).json();
  return {
    fresh: true,
    info: {
      chain: 'solana',
      network: 'localnet',
      rpcUrl: node.url,
      tokens: [{ contract: usdc, symbol: 'USDC', decimals: 6 }],
      genesis: (genesis as { result: string }).result,
      pid: process.pid,
      settings: { pollIntervalMs: 400, startBlock: 0 },
    },
    stop: async () => {
      clearInterval(ticker);
      await node.close();
    },
  };
}

export const rpcBody = (method: string, params: unknown[] = []): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
});
