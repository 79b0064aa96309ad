import { BaseError, type Db, isPublicError } from '@walletd/core';
import type { Knex } from 'knex';
import type { Common } from '../../platform/context';
import { audit } from '../../company/audit';
import { decidePolicies } from '../policies/policies';
import { broadcastWithdrawal } from '../broadcast';
import { type RequestRow, toIntent } from './requestView';
import { signWithdrawal } from '../send';
import { toWithdrawalView } from '../view';

export type OnApproval = 'send' | 'wait_for_send';

/** The company's default (owners set it in the console), else the deployment's `approvals.onApproval`. */
export async function companyOnApproval(common: Common, companyId: number): Promise<{ value: OnApproval; own: OnApproval | null }> {
  const row = (await common.db('companies').where({ id: companyId }).first('on_approval')) as
    | { on_approval: OnApproval | null }
    | undefined;
  const own = row?.on_approval ?? null;
  return { value: own ?? common.config.approvals.onApproval, own };
}

/**
 * What this request's quorum does: each triggered `approval_above` policy's `onApproval`, or the
 * company's default for one that names none (`companyOnApproval`). `wait_for_send` wins: a policy
 * that asks a person to press Send is never overruled by another that would send at once.
 */
export async function onApprovalFor(common: Common, req: RequestRow): Promise<OnApproval> {
  const fallback = (await companyOnApproval(common, req.company_id)).value;
  const decision = await decidePolicies(
    common.db,
    common.plugins,
    { id: req.wallet_id, company_id: req.company_id },
    toIntent(req.intent),
    0,
  );
  const ids = decision.outcome === 'refuse' && decision.code !== 'policy_denied' ? decision.policyIds.split(',').filter(Boolean) : [];
  if (ids.length === 0) return fallback;
  const params = (await common.db('spending_policies').whereIn('id', ids.map(Number)).pluck('params')) as { onApproval?: OnApproval }[];
  return params.some((p) => (p?.onApproval ?? fallback) === 'wait_for_send') ? 'wait_for_send' : 'send';
}

/** Fixes the request's `on_approval` once (the first quorum decides; a later policy edit does not change it). */
export async function fixOnApproval(common: Common, req: RequestRow): Promise<OnApproval> {
  const stored = req.on_approval;
  if (stored === 'send' || stored === 'wait_for_send') return stored;
  const mode = await onApprovalFor(common, req);
  await common.db('withdrawal_requests').where({ id: req.id }).whereNull('on_approval').update({ on_approval: mode });
  return ((await common.db('withdrawal_requests').where({ id: req.id }).first('on_approval')) as { on_approval: OnApproval }).on_approval;
}

/** Remembers the first time the approved withdrawal could not be prepared for want of funds, and when that makes it expire. */
export async function markFundsShort(common: Common, requestId: number): Promise<void> {
  const ms = common.config.approvals.fundsShortExpiryMs;
  await common
    .db('withdrawal_requests')
    .where({ id: requestId, status: 'approved' })
    .whereNull('funds_short_since')
    .update({
      funds_short_since: common.db.fn.now(),
      expires_at: common.db.raw('now() + make_interval(secs => ?)', [ms / 1000]),
    });
}

/**
 * Approved requests whose funds stayed short past `expires_at` (database time) become `expired`,
 * audited; run before anything would prepare one and before the console shows them, so an
 * approval from months ago never pays when money finally arrives.
 */
export async function expireFundsShort(db: Db | Knex.Transaction, companyId: number): Promise<void> {
  const expired = (await db('withdrawal_requests')
    .where({ company_id: companyId, status: 'approved' })
    .whereNull('withdrawal_id')
    .whereNotNull('expires_at')
    .andWhere('expires_at', '<=', db.fn.now())
    .update({ status: 'expired', updated_at: db.fn.now() })
    .returning(['id', 'funds_short_since', 'expires_at'])) as { id: number; funds_short_since: Date; expires_at: Date }[];
  for (const r of expired)
    await audit(db, {
      companyId,
      actorType: 'system',
      actorId: null,
      action: 'withdrawal_request.expired',
      targetType: 'withdrawal_request',
      targetId: r.id,
      details: { reason: 'funds_short', fundsShortSince: r.funds_short_since.toISOString(), expiresAt: r.expires_at.toISOString() },
    });
}

/** Refuses to act on a request that expired (after expiring any that are due). */
export async function refuseExpired(db: Db, req: RequestRow): Promise<void> {
  await expireFundsShort(db, req.company_id);
  const now = (await db('withdrawal_requests').where({ id: req.id }).first('status', 'expires_at')) as {
    status: string;
    expires_at: Date | null;
  };
  if (now.status === 'expired')
    throw new BaseError(
      'request_expired',
      `withdrawal request ${req.id} expired at ${now.expires_at?.toISOString()}: funds were short since its approval; propose it again`,
    );
}

export interface Sent {
  /** The withdrawal after signing and broadcasting (broadcast, or already further along). */
  withdrawal: Awaited<ReturnType<typeof toWithdrawalView>>;
}

/**
 * Sends a request's prepared withdrawal through the API's own path: `signWithdrawal` (the wallet's
 * signing claim, destinations and funds checked again) then `broadcastWithdrawal` (funds counted
 * against what is already broadcast, one send per withdrawal). Audited as the request's send, by
 * the member who pressed Send or by walletd itself for `send` at quorum.
 */
export async function sendApprovedRequest(
  common: Common,
  req: RequestRow,
  by: { memberId: number; ip: string | null; sessionId: number } | null,
): Promise<Sent> {
  const { db } = common;
  if (req.withdrawal_id === null)
    throw new BaseError('conflict', `withdrawal request ${req.id} has no prepared withdrawal yet; prepare it first`);
  const id = Number(req.withdrawal_id);
  try {
    const current = (await db('withdrawals').where({ id }).first('status')) as { status: string };
    if (current.status === 'prepared') await signWithdrawal(common, id, null);
    const row = await broadcastWithdrawal(common, id);
    await db('withdrawal_requests').where({ id: req.id }).update({ last_error: null, updated_at: db.fn.now() });
    await audit(db, {
      companyId: req.company_id,
      actorType: by ? 'member' : 'system',
      actorId: by?.memberId ?? null,
      action: 'withdrawal_request.sent',
      targetType: 'withdrawal_request',
      targetId: req.id,
      ip: by?.ip ?? null,
      details: { withdrawalId: id, status: row.status, ...(by ? { sessionId: by.sessionId } : { onApproval: 'send' }) },
    });
    return { withdrawal: await toWithdrawalView(db, common.plugins.chainTable(), row) };
  } catch (e) {
    const text = e instanceof Error ? e.message : String(e);
    await db('withdrawal_requests')
      .where({ id: req.id })
      .update({ last_error: `not sent: ${text}`, updated_at: db.fn.now() });
    throw e;
  }
}

/** `send` at quorum: sends at once; a failure leaves the withdrawal for a person's Send, the reason kept on the request. */
export async function sendAtQuorum(common: Common, requestId: number): Promise<{ sent: boolean; reason?: string }> {
  const req = (await common.db('withdrawal_requests').where({ id: requestId }).first()) as RequestRow;
  try {
    await sendApprovedRequest(common, req, null);
    return { sent: true };
  } catch (e) {
    if (!isPublicError(e)) common.logger.error({ err: e, requestId }, 'sending an approved withdrawal request failed');
    return { sent: false, reason: e instanceof Error ? e.message : String(e) };
  }
}
