import { type AssetRef, type Db, type PluginRegistry, type WalletdConfig, fromBaseUnits, parseBaseUnits } from '@walletd/core';
import { knownAssets } from '../wallets/transactions';
import type { DriftExplanation } from './explainDrift';

/** One comparison as the API shows it: exact decimal strings in the asset's units. */
export interface CheckView {
  walletId: number;
  /** The account compared; null for a pooled wallet (its every address summed). */
  address: string | null;
  asset: AssetRef;
  indexed: string;
  pending: string;
  inFlight: string;
  onchain: string;
  /** Signed, beyond what the known causes explain; '0' when the node agrees. */
  drift: string;
  /** A drift announced (`reconciliation.drift`) and not cleared since. */
  open: boolean;
  driftSince: string | null;
  checkedAt: string;
  /** While the node disagrees: the causes the records name and the transactions since it last agreed. */
  explanation: DriftExplanation | null;
}

interface CheckRow {
  wallet_id: number;
  address: string;
  asset_key: string;
  chain: string;
  network: string;
  indexed: string;
  pending: string;
  in_flight: string;
  onchain: string;
  drift: string;
  reported_drift: string | null;
  drift_since: Date | null;
  checked_at: Date;
  explanation: DriftExplanation | null;
}

function toView(r: CheckRow, asset: AssetRef): CheckView {
  const show = (v: string) => fromBaseUnits(parseBaseUnits(v), asset.decimals);
  return {
    walletId: r.wallet_id,
    address: r.address === '' ? null : r.address,
    asset,
    indexed: show(r.indexed),
    pending: show(r.pending),
    inFlight: show(r.in_flight),
    onchain: show(r.onchain),
    drift: show(r.drift),
    open: r.reported_drift !== null,
    driftSince: r.drift_since?.toISOString() ?? null,
    checkedAt: r.checked_at.toISOString(),
    explanation: r.drift === '0' ? null : r.explanation,
  };
}

/** Rows of assets no longer configured are left out: their decimals are not known. */
function views(rows: CheckRow[], config: WalletdConfig, plugins: PluginRegistry): CheckView[] {
  const assetsBy = new Map<string, Map<string, AssetRef>>();
  const out: CheckView[] = [];
  for (const r of rows) {
    const k = `${r.chain}:${r.network}`;
    let assets = assetsBy.get(k);
    if (!assets) {
      assets = knownAssets(config, plugins, r.chain, r.network);
      assetsBy.set(k, assets);
    }
    const asset = assets.get(r.asset_key);
    if (asset) out.push(toView(r, asset));
  }
  return out;
}

/** How the chain's reconciliation last ran (null before its first run). */
export async function reconciliationRun(db: Db, chain: string, network: string) {
  const run = (await db('reconciliation_runs').where({ chain, network }).first()) as
    | { finished_at: Date | null; pass_finished_at: Date | null; last_error: string | null }
    | undefined;
  return {
    lastRunAt: run?.finished_at?.toISOString() ?? null,
    lastPassAt: run?.pass_finished_at?.toISOString() ?? null,
    lastError: run?.last_error ?? null,
  };
}

/** A wallet's last comparisons, open drifts first, then by address and asset. */
export async function walletReconciliation(db: Db, config: WalletdConfig, plugins: PluginRegistry, walletId: number): Promise<CheckView[]> {
  const rows = (await db('reconciliation_checks')
    .where({ wallet_id: walletId })
    .orderByRaw('reported_drift is null, address, asset_key')
    .limit(1000)) as CheckRow[];
  return views(rows, config, plugins);
}

/** The company's open drifts (of the given wallets; null: all), newest first. */
export async function openDrifts(
  db: Db,
  config: WalletdConfig,
  plugins: PluginRegistry,
  companyId: number,
  walletIds: ReadonlySet<number> | null,
  limit = 200,
): Promise<CheckView[]> {
  const q = db('reconciliation_checks')
    .where({ company_id: companyId })
    .whereNotNull('reported_drift')
    .orderBy('drift_since', 'desc')
    .limit(limit);
  if (walletIds !== null) q.whereIn('wallet_id', [...walletIds]);
  return views((await q) as CheckRow[], config, plugins);
}

/** The company's comparisons since `since` that found a drift (of the given wallets; null: all): a "check now"'s findings. */
export async function driftsSince(
  db: Db,
  config: WalletdConfig,
  plugins: PluginRegistry,
  companyId: number,
  walletIds: ReadonlySet<number> | null,
  since: Date,
): Promise<CheckView[]> {
  const q = db('reconciliation_checks')
    .where({ company_id: companyId })
    .whereNot('drift', 0)
    .where('checked_at', '>=', since)
    .orderBy(['chain', 'network', 'wallet_id', 'address', 'asset_key'])
    .limit(1000);
  if (walletIds !== null) q.whereIn('wallet_id', [...walletIds]);
  return views((await q) as CheckRow[], config, plugins);
}

/** Per followed chain: the company's open drifts and when the chain was last compared (the console's overview). */
export async function reconciliationSummary(db: Db, companyId: number, chains: readonly { chain: string; network: string }[]) {
  const open = (await db('reconciliation_checks')
    .where({ company_id: companyId })
    .whereNotNull('reported_drift')
    .groupBy('chain', 'network')
    .select('chain', 'network', db.raw('count(*)::int as n'))) as { chain: string; network: string; n: number }[];
  return Promise.all(
    chains.map(async ({ chain, network }) => ({
      chain,
      network,
      openDrifts: open.find((o) => o.chain === chain && o.network === network)?.n ?? 0,
      ...(await reconciliationRun(db, chain, network)),
    })),
  );
}
