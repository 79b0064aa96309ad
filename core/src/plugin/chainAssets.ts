import { type AssetRef, assetKey, isChain, nativeAsset } from '@walletd/plugin-kit';
import type { ChainSettings } from '../config';
import type { ChainPlugin, TokenDefinition } from '@walletd/plugin-kit';

export interface ChainAssets {
  native: AssetRef;
  tokens: TokenDefinition[];
  byKey: Map<string, AssetRef>;
}

/** The native asset and the operator's token allow-list of one chain/network. */
export function chainAssets(plugin: ChainPlugin, settings: ChainSettings): ChainAssets {
  if (!isChain(settings.chain)) throw new Error(`unknown chain ${settings.chain}`);
  const chain = settings.chain;
  const native = nativeAsset(chain, settings.network);
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
