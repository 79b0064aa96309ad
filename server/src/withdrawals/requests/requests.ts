import { InvariantError, BaseError, type Db, type PluginRegistry, ROLE_ACTIONS, isBaseError, isPublicError, isRole } from '@walletd/core';
import type { Knex } from 'knex';
import type { Common } from '../../platform/context';
import type { WalletRow } from '../../http/scope';
import { audit } from '../../company/audit';
import { decidePolicies } from '../policies/policies';
import { type ResolvedIntent, intentHash, memoFields } from '../intent';
import { ownedSource } from '../ownedSource';
import { prepareWithdrawal } from '../prepare';
import { approvedSweepPlan } from '../../sweeps/approvedSweep';
import { type RequestRow, type StoredIntent, type VoteOutcome, toIntent, toRequestView } from './requestView';
import { countVotes } from './countVotes';
import { settleRequest } from './settleRequest';
import { requestWithdrawalKey } from './recountVoter';
import { fixOnApproval, markFundsShort, refuseExpired, sendAtQuorum } from './afterQuorum';
import { toWithdrawalView } from '../view';

export interface ProposeInput {
  intent: ResolvedIntent;
  note: string | null;
  idempotencyKey: string | null;
  keyId: number | null;
  memberId: number | null;
  /** A sweep waiting for approval: its withdrawal, once approved, is a sweep of this rule. */
  sweepRuleId?: number | null;
  /** A consolidation's addresses, stored with the intent: approved, the same addresses are consolidated again. */
  sources?: string[];
}

/**
 * A proposal for people to approve. Refused at once when a policy denies it outright (nobody
 * could approve it into existence). It needs at least one approval, more when an approval policy
 * asks for more; the number is fixed now and can only grow if policies tighten before the quorum.
 */
export async function proposeWithdrawal(
  db: Db,
  plugins: PluginRegistry,
  wallet: WalletRow,
  input: ProposeInput,
): Promise<{ row: RequestRow; replayed: boolean }> {
  const hash = intentHash(wallet.id, input.intent);
  const find = async (trx: Db | Knex.Transaction) =>
    input.idempotencyKey
      ? ((await trx('withdrawal_requests').where({ company_id: wallet.company_id, idempotency_key: input.idempotencyKey }).first()) as
          | RequestRow
          | undefined)
      : undefined;
  const replay = (existing: RequestRow) => {
    if (existing.intent_hash !== hash)
      throw new BaseError(
        'idempotency_conflict',
        `idempotencyKey "${input.idempotencyKey}" was already used for request ${existing.id} with a different body`,
      );
    return { row: existing, replayed: true };
  };
  const earlier = await find(db);
  if (earlier) return replay(earlier);
  // Checked as prepare checks it: approvers must never be shown a source that is not the wallet's.
  if (input.intent.from) await ownedSource(db, wallet.id, input.intent.from);
  const decision = await decidePolicies(db, plugins, wallet, input.intent, 0);
  // A destination still cooling off in the address book is refused now too: approvals gathered
  // for it would otherwise count as if no other policy applied.
  if (decision.outcome === 'refuse' && (decision.code === 'policy_denied' || decision.code === 'address_cooling_off'))
    throw new BaseError(decision.code, decision.message, { details: { policyIds: decision.policyIds } });
  const required = decision.outcome === 'refuse' ? (decision.requiredApprovals ?? 1) : 1;
  const stored: StoredIntent = {
    asset: input.intent.asset,
    outputs: input.intent.outputs.map((o) => ({ toAddress: o.to, toKey: o.toKey, amount: o.amount.toString(), ...memoFields(o) })),
    from: input.intent.from,
    ...(input.note ? { note: input.note } : {}),
    ...(input.sources ? { sources: input.sources } : {}),
  };
  const [row] = (await db('withdrawal_requests')
    .insert({
      company_id: wallet.company_id,
      wallet_id: wallet.id,
      intent: JSON.stringify(stored),
      status: 'pending',
      proposed_by_key: input.keyId,
      proposed_by_member: input.memberId,
      required_approvals: required,
      idempotency_key: input.idempotencyKey,
      intent_hash: hash,
      ...(input.sweepRuleId ? { kind: 'sweep', sweep_rule_id: input.sweepRuleId } : {}),
    })
    .onConflict(['company_id', 'idempotency_key'])
    .ignore()
    .returning('*')) as RequestRow[];
  if (!row) {
    const existing = await find(db);
    if (!existing) throw new InvariantError('request insert conflicted but no row was found');
    return replay(existing);
  }
  await audit(db, {
    companyId: wallet.company_id,
    // Without a key walletd proposed it itself (a sweep rule's run).
    actorType: input.keyId === null ? 'system' : 'api_key',
    actorId: input.keyId,
    action: 'withdrawal_request.proposed',
    targetType: 'withdrawal_request',
    targetId: row.id,
    details: { requiredApprovals: required },
  });
  return { row, replayed: false };
}

export type { VoteOutcome } from './requestView';

/** Where a vote comes from: the console's session, its address, and the company it is signed in to. */
export interface VoteOrigin {
  ip?: string | null;
  sessionId?: number | null;
  /** A request of any other company is not found (404), as if it did not exist. */
  companyId?: number;
}

/**
 * One member's vote, cast in the console by the signed-in member. The member must belong to the
 * company and hold a role that may move funds (owner or admin today), may vote once, and cannot
 * approve a request they proposed (they may reject it). One rejection rejects the request. When
 * the approvals reach the quorum the request is approved and prepared as a withdrawal at once,
 * with the approved intent. If preparing fails (node down, funds short) the vote still stands: the
 * answer is the approved request with `notPrepared` (the reason, kept as its `lastError`), and
 * `prepareApprovedRequest` (the console's "Prepare now", `walletd admin request prepare`) retries.
 */
export async function voteOnRequest(
  common: Common,
  requestId: number,
  memberId: number,
  vote: 'approve' | 'reject',
  origin: VoteOrigin = {},
): Promise<VoteOutcome> {
  const { db } = common;
  const outcome = await db.transaction(async (trx): Promise<VoteOutcome> => {
    const req = (await trx('withdrawal_requests').where({ id: requestId }).forUpdate().first()) as RequestRow | undefined;
    if (!req || (origin.companyId !== undefined && req.company_id !== origin.companyId))
      throw new BaseError('not_found', `withdrawal request ${requestId} not found`);
    if (req.status !== 'pending') throw new BaseError('conflict', `withdrawal request ${requestId} is already ${req.status}`);
    const member = (await trx('members').where({ id: memberId, company_id: req.company_id }).whereNull('removed_at').first('id', 'role')) as
      | { id: number; role: string }
      | undefined;
    if (!member) throw new BaseError('not_found', `member ${memberId} is not a member of the request's company`);
    if (!isRole(member.role) || !ROLE_ACTIONS[member.role].has('withdrawals:create'))
      throw new BaseError(
        'role_insufficient',
        `member ${memberId} (role: ${member.role}) may not approve withdrawals; owners and admins may`,
      );
    if (vote === 'approve' && req.proposed_by_member === memberId)
      throw new BaseError('forbidden', `member ${memberId} proposed request ${requestId} and cannot approve it`);
    const inserted = await trx('withdrawal_approvals')
      .insert({ request_id: req.id, member_id: memberId, decision: vote, ip: origin.ip ?? null, session_id: origin.sessionId ?? null })
      .onConflict(['request_id', 'member_id'])
      .ignore()
      .returning('id');
    if (inserted.length === 0) throw new BaseError('conflict', `member ${memberId} has already voted on request ${requestId}`);
    await audit(trx, {
      companyId: req.company_id,
      actorType: 'member',
      actorId: memberId,
      action: `withdrawal_request.${vote}d`,
      targetType: 'withdrawal_request',
      targetId: req.id,
      ip: origin.ip ?? null,
      details: origin.sessionId ? { sessionId: origin.sessionId } : undefined,
    });
    const close = async (status: 'approved' | 'rejected', lastError: string | null = null) =>
      (await trx('withdrawal_requests')
        .where({ id: req.id })
        .update({ status, last_error: lastError, decided_at: trx.fn.now(), updated_at: trx.fn.now() })
        .returning('*')) as RequestRow[];
    if (vote === 'reject') {
      const [closed] = await close('rejected', `rejected by member ${memberId}`);
      return { request: await toRequestView(trx, closed as RequestRow), message: `request ${req.id} rejected by member ${memberId}` };
    }
    return settleRequest(trx, common.plugins, req, memberId);
  });
  return outcome.request.status === 'approved' ? prepareOrSay(common, requestId, outcome.message) : outcome;
}

/**
 * The quorum was met: the withdrawal is prepared at once. If preparing fails (node down, funds
 * short) the approval stands: the answer says why nothing was prepared (also the request's
 * `lastError`) and "Prepare now" retries.
 */
export async function prepareOrSay(common: Common, requestId: number, message: string): Promise<VoteOutcome> {
  try {
    return await prepareApprovedRequest(common, requestId, message);
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    if (!isPublicError(e)) common.logger.error({ err: e, requestId }, 'preparing an approved withdrawal request failed');
    const row = (await common.db('withdrawal_requests').where({ id: requestId }).first()) as RequestRow;
    return { request: await toRequestView(common.db, row), message: `approved, not yet prepared: ${reason}`, notPrepared: reason };
  }
}

/** Makes the prepared withdrawal of an approved request (once: its idempotency key is the request's). */
export async function prepareApprovedRequest(common: Common, requestId: number, message = 'prepared'): Promise<VoteOutcome> {
  const { db } = common;
  const req = (await db('withdrawal_requests').where({ id: requestId }).first()) as RequestRow | undefined;
  if (!req) throw new BaseError('not_found', `withdrawal request ${requestId} not found`);
  // Issue 42 §6: an approval whose funds stayed short past its expiry never pays; what the quorum does is fixed once.
  await refuseExpired(db, req);
  if (req.status !== 'approved') throw new BaseError('conflict', `withdrawal request ${requestId} is ${req.status}, not approved`);
  const onApproval = await fixOnApproval(common, req);
  const wallet = (await db('wallets').where({ id: req.wallet_id }).first()) as WalletRow;
  const { approvals } = await countVotes(db, req);
  const idempotencyKey = requestWithdrawalKey(req);
  const intent = toIntent(req.intent);
  try {
    // A sweep is built as its rule builds it (consolidation, station as fee payer), unless a
    // crash left its withdrawal made: then prepare only finds it again.
    const made = await db('withdrawals').where({ company_id: req.company_id, idempotency_key: idempotencyKey }).first('id');
    const plan = req.sweep_rule_id && !made ? await approvedSweepPlan(common, wallet, req.sweep_rule_id, intent, req.intent.sources) : {};
    const { row } = await prepareWithdrawal(common, wallet, {
      intent,
      idempotencyKey,
      keyId: null,
      request: { id: req.id, approvals, reopened: req.reopened },
      sweepRuleId: req.sweep_rule_id,
      ...plan,
    });
    // Not over a request that went back to pending meanwhile (its withdrawal was cancelled then).
    const linked = await db('withdrawal_requests')
      .where({ id: req.id, status: 'approved', reopened: req.reopened })
      .update({ withdrawal_id: row.id, last_error: null, updated_at: db.fn.now() });
    const sending = onApproval === 'send' && linked > 0 ? await sendAtQuorum(common, req.id) : undefined;
    const updated = (await db('withdrawal_requests').where({ id: req.id }).first()) as RequestRow;
    const withdrawal = (await db('withdrawals').where({ id: row.id }).first()) as typeof row;
    return {
      request: await toRequestView(db, updated),
      message: sending ? `${message}; ${sending.sent ? 'sent' : `not sent: ${sending.reason}`}` : message,
      withdrawal: await toWithdrawalView(db, common.plugins.chainTable(), withdrawal),
      ...(sending ? { sent: sending.sent, ...(sending.reason !== undefined ? { notSent: sending.reason } : {}) } : {}),
    };
  } catch (e) {
    const text = e instanceof Error ? e.message : String(e);
    await db('withdrawal_requests').where({ id: req.id }).update({ last_error: text, updated_at: db.fn.now() });
    if (isBaseError(e) && e.code === 'insufficient_funds') await markFundsShort(common, req.id);
    throw e;
  }
}

export async function listRequests(
  db: Db,
  companyId: number,
  walletIds: ReadonlySet<number> | null,
  status?: string,
): Promise<RequestRow[]> {
  // An archived wallet is hidden from the API, its requests with it (as GET /withdrawal-requests/:id does).
  const q = db('withdrawal_requests')
    .where({ company_id: companyId })
    .whereExists((w) =>
      w.select(db.raw('1')).from('wallets').whereRaw('wallets.id = withdrawal_requests.wallet_id').whereNull('wallets.deleted_at'),
    )
    .orderBy('id', 'desc')
    .limit(200);
  if (walletIds !== null) q.whereIn('wallet_id', [...walletIds]);
  if (status) q.andWhere({ status });
  return (await q) as RequestRow[];
}
