import {
  type AssetRef,
  type Balance,
  BaseError,
  NodeUnavailableError,
  type Db,
  type PluginRegistry,
  type WalletdConfig,
  fromBaseUnits,
} from '@walletd/core';
import { ledger } from '../funds/ledger';

/** Assets a wallet's chain/network knows: the native one and the operator's allow-listed tokens. */
export function knownAssets(config: WalletdConfig, plugins: PluginRegistry, chain: string, network: string): Map<string, AssetRef> {
  const out = new Map<string, AssetRef>();
  const table = plugins.chainTable();
  if (!table.network(chain, network)) return out;
  const native = table.nativeAsset(chain, network);
  out.set(native.key, native);
  const plugin = plugins.forChain(chain);
  const settings = config.chains.find((c) => c.chain === chain && c.network === network);
  for (const t of settings?.tokens ?? []) {
    if (!plugin) break;
    const matchKey = plugin.matchKey(chain, network, t.contract);
    const key = `${chain}:${network}:${matchKey}`;
    out.set(key, { key, symbol: t.symbol, decimals: t.decimals, contractAddress: t.contract });
  }
  return out;
}

export interface BalanceView {
  asset: AssetRef;
  /** Credited: confirmed deposits minus confirmed withdrawals and every fee paid on chain. */
  confirmed: string;
  /** Detected, not yet final: never to be credited. */
  pending: string;
  /** Held by in-flight withdrawals (prepared, signed, broadcast): their amounts and fee caps. */
  reserved: string;
  /** What a new withdrawal can take: confirmed minus reserved. */
  available: string;
}

/**
 * Balances from the balance ledger (`ledger`: one row per asset, kept as money moves), exact
 * decimal strings. No figure is negative: reservations are only taken against what is credited,
 * so `reserved` never exceeds `confirmed` unless a credited deposit was later retracted (a reorg
 * deeper than the confirmation threshold); `available` then reads 0 until it settles.
 */
export async function walletBalances(db: Db, assets: Map<string, AssetRef>, walletId: number, nativeKey: string): Promise<BalanceView[]> {
  const held = await ledger(db, { walletId, address: null, nativeKey });
  const nonNegative = (units: bigint) => (units < 0n ? 0n : units);
  return [...assets.values()].map((asset) => {
    const h = held.get(asset.key) ?? { credited: 0n, reserved: 0n, pending: 0n };
    const show = (units: bigint) => fromBaseUnits(nonNegative(units), asset.decimals);
    return {
      asset,
      confirmed: show(h.credited),
      pending: show(h.pending),
      reserved: show(h.reserved),
      available: show(h.credited - h.reserved),
    };
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
    throw new NodeUnavailableError(chain, network, cause);
  }
  return out;
}
