import { ALL_ACTIONS, type Action, type Db, type Role } from '@walletd/core';
import { addMember, createApiKey, createCompany } from '@walletd/server';

export interface Seeded {
  companyId: number;
  ownerId: number;
  /** A key with every action on every wallet. */
  rootKey: string;
}

export async function seedCompany(db: Db, plan: 'none' | 'free' | 'paid' = 'paid', name = 'Acme'): Promise<Seeded> {
  const company = await createCompany(db, { name, plan });
  const owner = await addMember(db, { companyId: company.id, email: `owner-${company.id}@example.com`, role: 'owner' });
  const { key } = await createApiKey(db, { companyId: company.id, createdBy: owner.id, actions: [...ALL_ACTIONS], walletIds: null });
  return { companyId: company.id, ownerId: owner.id, rootKey: key };
}

export async function keyFor(
  db: Db,
  companyId: number,
  opts: { actions: Action[]; walletIds?: number[] | null; role?: Role; createdBy?: number; allowIps?: string[]; expiresInMs?: number },
): Promise<{ key: string; id: number; memberId: number }> {
  let memberId = opts.createdBy;
  if (memberId === undefined) {
    const m = await addMember(db, { companyId, email: `m-${Math.random().toString(36).slice(2)}@example.com`, role: opts.role ?? 'admin' });
    memberId = m.id;
  }
  const { key, record } = await createApiKey(db, {
    companyId,
    createdBy: memberId,
    actions: opts.actions,
    walletIds: opts.walletIds ?? null,
    allowIps: opts.allowIps ?? null,
    expiresInMs: opts.expiresInMs ?? null,
  });
  return { key, id: record.id, memberId };
}

/**
 * A devnet EVM wallet with one watched address, written straight to the tables: the indexer's
 * store tests need the rows a deposit is matched to, not keys. Returns the wallet's id.
 */
export async function seedWatchedAddress(db: Db, companyId: number, address: string, name = 'w'): Promise<number> {
  const [wallet] = await db('wallets')
    .insert({ company_id: companyId, name, chain: 'ethereum', network: 'devnet', secret_envelope: {} })
    .returning('id');
  await db('addresses').insert({
    company_id: companyId,
    wallet_id: wallet.id,
    chain: 'ethereum',
    network: 'devnet',
    address,
    match_key: address,
    derivation_index: 0,
    derivation_path: "m/44'/60'/0'/0/0",
  });
  return wallet.id as number;
}
