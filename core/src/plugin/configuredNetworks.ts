import type { ConfiguredNetwork } from '@walletd/plugin-kit';
import type { ChainSettings } from '../config';

/**
 * The `chains[]` entries that declare a network of their own (`family`), as the plugins receive
 * them (`createPlugin({ configuredNetworks })`). The config schema has required chainId,
 * nativeSymbol and confirmations with `family`.
 */
export function configuredNetworksOf(chains: readonly ChainSettings[]): ConfiguredNetwork[] {
  return chains.flatMap((c) =>
    c.family === undefined || c.chainId === undefined || c.nativeSymbol === undefined || c.confirmations === undefined
      ? []
      : [
          {
            chain: c.chain,
            network: c.network,
            family: c.family,
            chainId: c.chainId,
            native: { symbol: c.nativeSymbol, decimals: c.nativeDecimals ?? 18 },
            defaultConfirmations: c.confirmations,
            finality: c.finality ?? 'confirmations',
            testnet: c.testnet ?? false,
          },
        ],
  );
}
