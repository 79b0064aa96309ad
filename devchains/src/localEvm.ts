import type { Logger } from '@walletd/core';
import { startDevnet } from './anvilDevnet';
import type { LocalChain } from './localChain';

/**
 * The EVM devnet for `walletd serve` (ethereum/devnet): anvil from npm with its state under
 * `<dataDir>/anvil`, shared by the walletd processes of one data directory (anvilDevnet.ts), a
 * block a second, and the devnet USDC. Its restored chain is the same chain: never fresh.
 */
export async function startLocalEvm(options: { port: number; dataDir: string; logger: Logger }): Promise<LocalChain> {
  const devnet = await startDevnet(options);
  return {
    fresh: false,
    info: {
      chain: 'ethereum',
      network: 'devnet',
      rpcUrl: devnet.rpcUrl,
      tokens: [{ contract: devnet.usdc, symbol: 'USDC', decimals: 6 }],
      genesis: devnet.genesisHash ?? '',
      // anvil is a process of its own, possibly started by another walletd process.
      pid: null,
      settings: { confirmations: 2, pollIntervalMs: 1000, startBlock: 0 },
    },
    stop: () => devnet.stop(),
  };
}
