import { BaseError, type Db, type PluginRegistry } from '@walletd/core';
import type { InboxRequest, InboxVote, NoUndeclared, Undeclared } from '@walletd/schemas';
import { decidePolicies } from '../policies/policies';
import { type RequestRow, type RequestView, toIntent, toRequestView } from './requestView';

export type { InboxRequest, InboxVote };
/** The API's request view is spread into the inbox's, past the excess-property check: a field the contract does not declare fails the build. */
export type RequestViewDeclared = NoUndeclared<Undeclared<InboxRequest, RequestView>>;

export async function toInboxRequest(db: Db, plugins: PluginRegistry, row: RequestRow): Promise<InboxRequest> {
  const view = await toRequestView(db, row);
  const votes = (await db('withdrawal_approvals as a')
    .join('members as m', 'm.id', 'a.member_id')
    .where('a.request_id', row.id)
    .orderBy('a.id')
    .select('a.member_id', 'm.email', 'a.decision', 'a.created_at')) as {
    member_id: number;
    email: string;
    decision: string;
    created_at: Date;
  }[];
  // Evaluated as at proposal (no approvals yet): the policies that ask people to sign off, as they stand now.
  const decision = await decidePolicies(db, plugins, { id: row.wallet_id, company_id: row.company_id }, toIntent(row.intent), 0);
  const proposer = row.proposed_by_member
    ? ((await db('members').where({ id: row.proposed_by_member }).first('email')) as { email: string } | undefined)
    : undefined;
  const wallet = (await db('wallets').where({ id: row.wallet_id }).first('name')) as { name: string };
  return {
    ...view,
    walletName: wallet.name,
    policyIds: decision.outcome === 'refuse' ? decision.policyIds : '',
    votes: votes.map((v) => {
      const counted = view.approvals.find((a) => a.memberId === v.member_id);
      return {
        memberId: v.member_id,
        email: v.email,
        decision: v.decision,
        at: v.created_at.toISOString(),
        counts: counted?.counts ?? false,
        ...(counted?.reason ? { reason: counted.reason } : {}),
        ...(counted?.countsFrom ? { countsFrom: counted.countsFrom } : {}),
      };
    }),
    proposedByEmail: proposer?.email ?? null,
  };
}

/** One request of the member's company; another company's is not found, exactly like a missing one. */
export async function inboxRequest(db: Db, companyId: number, rawId: string): Promise<RequestRow> {
  const id = /^[1-9][0-9]{0,9}$/.test(rawId) ? Number(rawId) : Number.NaN;
  const row =
    Number.isSafeInteger(id) && id <= 2_147_483_647
      ? ((await db('withdrawal_requests as r')
          .join('wallets as w', 'w.id', 'r.wallet_id')
          .where({ 'r.id': id, 'r.company_id': companyId })
          .whereNull('w.deleted_at')
          .first('r.*')) as RequestRow | undefined)
      : undefined;
  if (!row) throw new BaseError('not_found', `withdrawal request ${rawId} not found`);
  return row;
}
