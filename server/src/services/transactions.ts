import {
  type AssetRef,
  type Balance,
  BaseError,
  type Chain,
  type Db,
  type PluginRegistry,
  type WalletdConfig,
  fromBaseUnits,
  isChain,
  nativeAsset,
  parseBaseUnits,
} from '@walletd/core';

/** Assets a wallet's chain/network knows: the native one and the operator's allow-listed tokens. */
export function knownAssets(config: WalletdConfig, plugins: PluginRegistry, chain: string, network: string): Map<string, AssetRef> {
  const out = new Map<string, AssetRef>();
  if (!isChain(chain)) return out;
  const native = nativeAsset(chain, network);
  out.set(native.key, native);
  const plugin = plugins.forChain(chain);
  const settings = config.chains.find((c) => c.chain === chain && c.network === network);
  for (const t of settings?.tokens ?? []) {
    if (!plugin) break;
    const matchKey = plugin.matchKey(chain as Chain, network, t.contract);
    const key = `${chain}:${network}:${matchKey}`;
    out.set(key, { key, symbol: t.symbol, decimals: t.decimals, contractAddress: t.contract });
  }
  return out;
}

export interface BalanceView {
  asset: AssetRef;
  /** Credited: confirmed deposits minus withdrawals from signing on and the fees they paid. */
  confirmed: string;
  /** Detected, not yet final: never to be credited. */
  pending: string;
}

/** Balances from indexed transfers, per asset, exact decimal strings. */
export async function walletBalances(db: Db, assets: Map<string, AssetRef>, walletId: number): Promise<BalanceView[]> {
  const rows = (await db('transfers')
    .where({ wallet_id: walletId, direction: 'incoming' })
    .whereIn('status', ['pending', 'confirmed'])
    .groupBy('asset_key', 'status')
    .select('asset_key', 'status', db.raw('sum(amount)::text as total'))) as { asset_key: string; status: string; total: string }[];
  const totals = new Map<string, { confirmed: bigint; pending: bigint }>();
  for (const key of assets.keys()) totals.set(key, { confirmed: 0n, pending: 0n });
  const add = (key: string, field: 'confirmed' | 'pending', delta: bigint) => {
    const t = totals.get(key) ?? { confirmed: 0n, pending: 0n };
    t[field] += delta;
    totals.set(key, t);
  };
  for (const r of rows) add(r.asset_key, r.status === 'confirmed' ? 'confirmed' : 'pending', parseBaseUnits(r.total));
  // Spent: every withdrawal from signing on (its transaction exists), and the fees paid on chain.
  const spent = (await db('withdrawals')
    .where({ wallet_id: walletId })
    .whereIn('status', ['signed', 'broadcast', 'confirmed', 'rejected'])
    .groupBy('asset_key', 'chain', 'network')
    .select(
      'asset_key',
      'chain',
      'network',
      db.raw(`coalesce(sum(amount) filter (where status <> 'rejected'), 0)::text as amount`),
      db.raw('coalesce(sum(fee), 0)::text as fees'),
    )) as { asset_key: string; chain: string; network: string; amount: string; fees: string }[];
  for (const w of spent) {
    add(w.asset_key, 'confirmed', -parseBaseUnits(w.amount));
    if (isChain(w.chain)) add(nativeAsset(w.chain, w.network).key, 'confirmed', -parseBaseUnits(w.fees));
  }
  return [...totals].flatMap(([key, t]) => {
    const asset = assets.get(key);
    if (!asset) return [];
    return [{ asset, confirmed: fromBaseUnits(t.confirmed, asset.decimals), pending: fromBaseUnits(t.pending, asset.decimals) }];
  });
}

/**
 * What the node says: the sum over the wallet's addresses of each asset's on-chain balance, to
 * compare with the indexed figures. Needs the chain in chains[] (or the devnet).
 */
export async function onchainBalances(
  config: WalletdConfig,
  plugins: PluginRegistry,
  chain: string,
  network: string,
  addresses: string[],
  assets: AssetRef[],
): Promise<Map<string, Balance>> {
  const settings = config.chains.find((c) => c.chain === chain && c.network === network);
  const plugin = plugins.forChain(chain);
  if (!settings || !plugin)
    throw new BaseError('unprocessable', `${chain}/${network} is not followed by this service (chains[] in the config)`);
  const reader = plugins.readerFor(settings);
  const out = new Map<string, Balance>();
  try {
    for (const asset of assets) {
      const sum: Balance = { total: 0n, spendable: 0n };
      for (const a of addresses) {
        const b = await reader.getBalance(a, asset);
        sum.total += b.total;
        sum.spendable += b.spendable;
      }
      out.set(asset.key, sum);
    }
  } catch (cause) {
    throw new BaseError('node_error', `the ${chain}/${network} node did not answer the balance check`, { cause });
  }
  return out;
}
