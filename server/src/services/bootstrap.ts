import { ALL_ACTIONS, type Db } from '@walletd/core';
import { createApiKey } from './apiKeys';

export interface BootstrapResult {
  companyId: number;
  memberId: number;
  keyId: number;
  key: string;
}

/**
 * On an empty database: a first company (plan paid), its owner and an API key with every action
 * on every wallet, so `npm start` is usable at once. Returns null when a company already exists.
 * Serialised by an advisory lock so two processes starting together create one company.
 */
export async function bootstrapIfEmpty(db: Db): Promise<BootstrapResult | null> {
  return db.transaction(async (trx) => {
    await trx.raw(`select pg_advisory_xact_lock(hashtext('walletd:bootstrap'))`);
    const existing = await trx('companies').first('id');
    if (existing) return null;
    const [company] = await trx('companies').insert({ name: 'My company', plan: 'paid' }).returning('id');
    const [member] = await trx('members').insert({ company_id: company.id, email: 'owner@localhost', role: 'owner' }).returning('id');
    const { key, record } = await createApiKey(trx as unknown as Db, {
      companyId: company.id,
      createdBy: member.id,
      name: 'bootstrap',
      actions: [...ALL_ACTIONS],
      walletIds: null,
    });
    return { companyId: company.id, memberId: member.id, keyId: record.id, key };
  });
}
