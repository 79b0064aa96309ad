import type { NativeAsset } from '../chains';
import type { Finality } from './chainDefinition';

/**
 * A network the operator declares in `chains[]` that no plugin ships (an EVM network such as
 * Base): walletd hands these to every plugin's `createPlugin({ configuredNetworks })`, and the
 * plugin of the named `family` serves them as it serves its own. The chain id is what the node
 * must report (`eth_chainId`); a node reporting another stops the chain (`chain_id_mismatch`).
 */
export interface ConfiguredNetwork {
  /** The configured name, used everywhere walletd names a chain (API, events, metrics). */
  chain: string;
  network: string;
  /** Which plugin serves it: `evm`. */
  family: string;
  chainId: number;
  native: NativeAsset;
  defaultConfirmations: number;
  finality: Finality;
  testnet: boolean;
}

/** What walletd passes to a plugin package's `createPlugin()`; plugins that serve no configured network ignore it. */
export interface CreatePluginOptions {
  configuredNetworks?: readonly ConfiguredNetwork[];
}
