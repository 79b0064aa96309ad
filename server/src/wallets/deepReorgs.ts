import type { Db } from '@walletd/core';

/** The audit action the indexer writes for a reorg deeper than the threshold (indexer `deepReorgAudit.ts`). */
const ACTION = 'chain.deep_reorg';

export interface DeepReorgNotice {
  chain: string;
  network: string;
  at: string;
  /** The common ancestor the indexer rewound to, and the height the fork was seen at. */
  ancestor: string;
  from: string;
}

/**
 * Reorgs deeper than the confirmation threshold on the followed chains in the last `hours`, newest
 * first, for the Overview's banner. Chain and heights only: the row names records of every company,
 * and a member sees only their own (the retracted deposits arrive as `deposit.rejected`).
 */
export async function recentDeepReorgs(
  db: Db,
  chains: readonly { chain: string; network: string }[],
  hours = 24,
): Promise<DeepReorgNotice[]> {
  if (chains.length === 0) return [];
  const rows = (await db('audit_log')
    .whereNull('company_id')
    .andWhere('action', ACTION)
    .andWhere('created_at', '>', db.raw(`now() - make_interval(hours => ?)`, [hours]))
    .whereIn(
      'target_id',
      chains.map((c) => `${c.chain}/${c.network}`),
    )
    .orderBy('created_at', 'desc')
    .limit(10)
    .select('details', 'created_at')) as { details: Record<string, string>; created_at: Date }[];
  return rows.map((r) => ({
    chain: String(r.details.chain),
    network: String(r.details.network),
    at: r.created_at.toISOString(),
    ancestor: String(r.details.ancestor),
    from: String(r.details.from),
  }));
}
