import { ALL_ACTIONS, type Db } from '@walletd/core';
import { issueLink } from './memberLinks';
import { createApiKey } from '../../keys/apiKeys';

export interface BootstrapResult {
  companyId: number;
  memberId: number;
  keyId: number;
  key: string;
  /** The one-time link token for the owner to set a password (then MFA) in the console. */
  ownerLinkToken: string;
}

/**
 * On an empty database: a first company (plan paid), its owner, an API key with every action on
 * every wallet, and the owner's one-time console link, so `npm start` is usable at once. Returns
 * null when a company already exists. Serialised by an advisory lock so two processes starting
 * together create one company. The link is issued in the same transaction: a start that dies
 * half-way leaves no owner without a way in.
 */
export async function bootstrapIfEmpty(db: Db, link: { nowMs: number; ttlMs: number }): Promise<BootstrapResult | null> {
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
    const ownerLinkToken = await issueLink(trx as unknown as Db, member.id, 'invitation', link.nowMs, link.ttlMs);
    return { companyId: company.id, memberId: member.id, keyId: record.id, key, ownerLinkToken };
  });
}
