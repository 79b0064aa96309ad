import { type Db, type PluginRegistry, type WalletdConfig, fromBaseUnits, parseBaseUnits } from '@walletd/core';
import type { ConsolePolicy } from '@walletd/schemas';
import { resolvePolicyAsset } from './policyAsset';
import type { PolicyView } from './policies';
import { policySentence } from './policySentence';

export type { ConsolePolicy };

/** The company's wallet names, for the sentences. */
export async function walletNames(db: Db, companyId: number): Promise<Map<number, string>> {
  const rows = (await db('wallets').where({ company_id: companyId }).select('id', 'name')) as { id: number; name: string | null }[];
  return new Map(rows.filter((r) => r.name).map((r) => [r.id, r.name as string]));
}

/** A policy as the console shows and edits it: amounts in the asset's display units, the rule in words. */
export function toConsolePolicy(
  deps: { config: WalletdConfig; plugins: PluginRegistry },
  p: PolicyView,
  names: ReadonlyMap<number, string>,
): ConsolePolicy {
  let asset: ConsolePolicy['asset'] = null;
  if (p.assetKey) {
    try {
      const a = resolvePolicyAsset(deps.config, deps.plugins, p.assetKey);
      asset = { key: a.key, symbol: a.symbol, decimals: a.decimals };
    } catch {
      // A token no longer followed: its decimals are unknown, the sentence says base units.
    }
  }
  const shown = (v: unknown) => (typeof v !== 'string' ? null : asset ? fromBaseUnits(parseBaseUnits(v), asset.decimals) : v);
  return {
    id: p.id,
    name: p.name,
    kind: p.kind,
    enabled: p.enabled,
    createdAt: p.createdAt,
    sentence: policySentence(p, asset, names),
    asset,
    walletIds: p.walletIds,
    addresses: Array.isArray(p.params.addresses) ? (p.params.addresses as string[]) : null,
    max: shown(p.params.max),
    threshold: shown(p.params.threshold),
    approvals: typeof p.params.approvals === 'number' ? p.params.approvals : null,
    onApproval: p.params.onApproval === 'send' || p.params.onApproval === 'wait_for_send' ? p.params.onApproval : null,
  };
}
