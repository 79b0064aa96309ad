import { type AssetRef, BaseError, type PluginRegistry, type WalletdConfig, fromBaseUnits, parseBaseUnits } from '@walletd/core';
import type { PolicyView } from './policies';
import { knownAssets } from '../../wallets/transactions';
// The chains `walletd` follows, as the CLI's chainsOf reads them (devnet chains when none are configured).
import { knownPlaygroundChains as chainsOf } from '../../devnet/playground';

/**
 * The asset a policy limits, in the forms the API takes: a key (`ethereum:mainnet:eth`,
 * `ethereum:mainnet:<token contract>`) or a symbol (`USDC`, case-insensitive) of a chain this
 * service follows, narrowed by `--chain`/`--network` when the symbol exists on several.
 */
export function resolvePolicyAsset(
  config: WalletdConfig,
  plugins: PluginRegistry,
  text: string,
  scope: { chain?: string; network?: string } = {},
): AssetRef {
  const followed = { ...config, chains: chainsOf(config) };
  const [chain, network] = text.split(':');
  if (text.includes(':') && chain && network) {
    const byKey = knownAssets(followed, plugins, chain, network).get(text.toLowerCase());
    if (byKey) return byKey;
    throw new BaseError('unknown_asset', `unknown asset "${text}"; use an asset key (<chain>:<network>:<asset>) or a symbol such as USDC`);
  }
  const candidates = followed.chains
    .filter((c) => (scope.chain === undefined || c.chain === scope.chain) && (scope.network === undefined || c.network === scope.network))
    .flatMap((c) => [...knownAssets(followed, plugins, c.chain, c.network).values()])
    .filter((a) => a.symbol.toLowerCase() === text.toLowerCase());
  const [only, ...more] = candidates;
  if (only && more.length === 0) return only;
  if (only) {
    throw new BaseError(
      'unprocessable',
      `the symbol ${text} names several assets (${candidates.map((a) => a.key).join(', ')}); give --chain/--network or the asset key`,
    );
  }
  const known = followed.chains.map((c) => `${c.chain}/${c.network}`).join(', ') || 'none configured';
  throw new BaseError('unknown_asset', `no followed chain (${known}) has an asset with the symbol "${text}"; use the asset key`);
}

/** A policy as an operator reads it: amounts in the asset's display units, with its symbol. */
export function policyForDisplay(config: WalletdConfig, plugins: PluginRegistry, p: PolicyView): Record<string, unknown> {
  if (!p.assetKey) return { ...p };
  let asset: AssetRef | undefined;
  try {
    asset = resolvePolicyAsset(config, plugins, p.assetKey);
  } catch {
    asset = undefined;
  }
  // A token no longer in the config: its decimals are unknown, so show base units and say so.
  if (!asset) return { ...p, note: `amounts in base units: ${p.assetKey} is not among the followed assets` };
  const params: Record<string, unknown> = { ...p.params };
  for (const field of ['max', 'threshold'] as const) {
    const v = p.params[field];
    if (typeof v === 'string') params[field] = `${fromBaseUnits(parseBaseUnits(v), asset.decimals)} ${asset.symbol}`;
  }
  return { ...p, params, asset: { key: asset.key, symbol: asset.symbol, decimals: asset.decimals } };
}
