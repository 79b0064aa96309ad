import { type ChainPlugin, PLUGIN_API_VERSION } from '@walletd/plugin-kit';
import { formatAddressOf, matchKeyOf, scriptHexOf } from './addresses';
import { confirm } from './verbs/confirm';
import { createLitecoinWithdrawals } from './verbs';
import { deriveAt } from './derive';
import { type LitecoinReader, createLitecoinReader } from './reader';
import { LITECOIN } from './networks';

export { LITECOIN, NETWORKS } from './networks';
export { frameBlock } from './detect';
export type { LitecoinPayload } from './payload';

/**
 * walletd loads a chain plugin by package name and calls `createPlugin()` (the `plugins` list of
 * its config). Everything here comes from `@walletd/plugin-kit` (a peer dependency: the one copy
 * walletd itself loads) and the bitcoinjs family (`src/libs.ts`): no crypto of its own.
 */
export function createPlugin(): ChainPlugin<LitecoinReader> {
  return {
    apiVersion: PLUGIN_API_VERSION,
    name: 'walletd-plugin-litecoin',
    chains: [LITECOIN],
    detectModule: require.resolve('./detect'),
    validateAddress: (chain, network, address) => scriptHexOf(chain, network, address) !== null,
    matchKey: matchKeyOf,
    formatAddress: formatAddressOf,
    deriveAddress: (chain, network, secret, index) => deriveAt(chain, network, secret, 0, index),
    deriveChangeAddress: (chain, network, secret, index) => deriveAt(chain, network, secret, 1, index),
    createReader: createLitecoinReader,
    confirm,
    withdrawals: createLitecoinWithdrawals(),
  };
}
