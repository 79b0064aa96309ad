import { type AssetRef, BUILT_IN_PLUGINS, type PluginRegistry } from '@walletd/core';
import { loadPlugins } from '@walletd/server';

let shipped: PluginRegistry | undefined;

/**
 * The seven shipped plugins, registered once per test file: where a test needs the chains'
 * declared data (native assets, networks) without an app. Core lists no chains (issue 31).
 */
export function shippedPlugins(): PluginRegistry {
  shipped ??= loadPlugins(BUILT_IN_PLUGINS);
  return shipped;
}

/** A network's native asset as its shipped plugin declares it. */
export const nativeAsset = (chain: string, network: string): AssetRef => shippedPlugins().chainTable().nativeAsset(chain, network);

/** The eleven chains the shipped plugins serve: what tests expect a default walletd to serve. */
export const SHIPPED_CHAINS = [
  'ethereum',
  'bsc',
  'polygon',
  'arbitrum',
  'bitcoin',
  'dogecoin',
  'xrp',
  'polkadot',
  'tron',
  'solana',
  'ton',
] as const;
