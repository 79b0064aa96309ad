import { type AssetRef, assetKey, chainTableOf } from '@walletd/plugin-kit';
import type { ChainSettings } from '../config';
import type { ChainPlugin, TokenDefinition } from '@walletd/plugin-kit';

export interface ChainAssets {
  native: AssetRef;
  tokens: TokenDefinition[];
  byKey: Map<string, AssetRef>;
}

/** The native asset and the operator's token allow-list of one chain/network. */
export function chainAssets(plugin: ChainPlugin, settings: ChainSettings): ChainAssets {
  const chain = settings.chain;
  // The plugin that serves the chain declares its native asset (no list of chains in core).
  const native = chainTableOf(plugin.chains).nativeAsset(chain, settings.network);
  const tokens = (settings.tokens ?? []).map((t): TokenDefinition => {
    const matchKey = plugin.matchKey(chain, settings.network, t.contract);
    return {
      key: assetKey(chain, settings.network, matchKey),
      symbol: t.symbol,
      decimals: t.decimals,
      contractAddress: t.contract,
      matchKey,
    };
  });
  const byKey = new Map<string, AssetRef>([[native.key, native], ...tokens.map((t) => [t.key, t] as [string, AssetRef])]);
  return { native, tokens, byKey };
}
