import type { Db, Plan } from '@walletd/core';

export interface CompanySummary {
  id: number;
  name: string;
  plan: Plan;
  encryptionKeySet: boolean;
  createdAt: string;
  /** Wallets not deleted: the ones the company's API keys can still see. */
  wallets: number;
}

interface SummaryRow {
  id: number;
  name: string;
  plan: Plan;
  encryption_key_set: boolean;
  created_at: Date;
  wallets: string;
}

/** Every company on this service, oldest first: for the operator, who has no API key of its own. */
export async function listCompanies(db: Db): Promise<CompanySummary[]> {
  const rows = (await db('companies as c')
    .select(
      'c.id',
      'c.name',
      'c.plan',
      'c.created_at',
      db.raw('c.encryption_public_key IS NOT NULL AS encryption_key_set'),
      db('wallets as w').count('*').whereRaw('w.company_id = c.id').whereNull('w.deleted_at').as('wallets'),
    )
    .orderBy('c.id')) as SummaryRow[];
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    plan: r.plan,
    encryptionKeySet: r.encryption_key_set,
    createdAt: r.created_at.toISOString(),
    wallets: Number(r.wallets),
  }));
}
