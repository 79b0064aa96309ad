/**
 * What a chain is, as data. The chains themselves are the ones the loaded plugins declare
 * (`ChainDefinition`, `chainTableOf`): the kit, core and the server list none (issue 31).
 */

/**
 * A chain's name, as the plugin that serves it declares it (lowercase, e.g. `ethereum`): a plain
 * string, since the set of chains is the set the loaded plugins declare.
 */
export type Chain = string;

/** The form of a chain's name (registration refuses another): it is part of asset keys and URLs. */
export const CHAIN_NAME = /^[a-z][a-z0-9-]{0,31}$/;

export interface NativeAsset {
  symbol: string;
  decimals: number;
}

export interface NetworkInfo {
  name: string;
  /** Test networks carry no real value; the free plan is limited to them. */
  testnet: boolean;
  native: NativeAsset;
}

export interface AssetRef {
  /** `<chain>:<network>:<asset>`; `<asset>` is the lowercase native symbol or the token contract. */
  key: string;
  symbol: string;
  decimals: number;
  contractAddress: string | null;
}

export const assetKey = (chain: string, network: string, asset: string): string => `${chain}:${network}:${asset}`;
