import { type ChainPlugin, PLUGIN_API_VERSION, refusingUnreadableSigned } from '@walletd/plugin-kit';
import { formatAddressOf, matchKeyOf, scriptHexOf } from './encoding/address';
import { build } from './logic/build';
import { broadcast } from './logic/broadcast';
import { checkSigned } from './logic/checkSigned';
import { confirm } from './logic/confirm';
import { deriveAt } from './logic/derive';
import { sign } from './logic/sign';
import { verify } from './logic/verify';
import { type LitecoinReader, createLitecoinReader } from './network/reader';
import { LITECOIN } from './networks';

export { LITECOIN, NETWORKS } from './networks';
export { frameBlock } from './logic/detect';
export type { LitecoinPayload } from './logic/payload';

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
    detectModule: require.resolve('./logic/detect'),
    validateAddress: (chain, network, address) => scriptHexOf(chain, network, address) !== null,
    matchKey: matchKeyOf,
    formatAddress: formatAddressOf,
    deriveAddress: (chain, network, secret, index) => deriveAt(chain, network, secret, 0, index),
    deriveChangeAddress: (chain, network, secret, index) => deriveAt(chain, network, secret, 1, index),
    createReader: createLitecoinReader,
    confirm,
    withdrawals: refusingUnreadableSigned('litecoin transaction', { build, sign, checkSigned, broadcast, verify }),
  };
}
