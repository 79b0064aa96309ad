import type { ConsoleVoteAnswer } from '@walletd/schemas';
import type { RequestHandler, Router } from 'express';
import { BaseError, type WithdrawalRow } from '@walletd/core';
import type { Common } from '../../platform/context';
import { audit } from '../../company/audit';
import { expireFundsShort, refuseExpired, sendApprovedRequest } from './afterQuorum';
import { toWithdrawalView } from '../view';
import { listRequests, prepareApprovedRequest, voteOnRequest } from './requests';
import type { Clock } from '../../platform/clock';
import { requestFacts } from './requestFacts';
import { inboxRequest, toInboxRequest } from './inboxView';
import { requireMfaEnrolled, requireRoleAction } from '../../members/sessions/memberGuards';
import { requireStepUp } from '../../members/sessions/sessions';

const STATUSES = new Set(['pending', 'approved', 'rejected', 'expired']);
/** A request's withdrawal that Send still moves; one further along is answered as it is. */
const UNSENT = new Set(['prepared', 'signed']);

/**
 * The withdrawal-requests inbox (`/console/api/requests`), behind `requireSession` (and its CSRF
 * check). Any member of the company may read it; voting needs a role that may move funds, an
 * enrolled authenticator, and a step-up within `console.stepUpMs`, checked in that order so a
 * viewer learns only that it may not vote.
 */
export function mountRequestRoutes(r: Router, common: Common, clock: Clock, session: RequestHandler): void {
  const { db, plugins } = common;
  const stepUpMs = common.config.console.stepUpMs;

  const enrolled = requireMfaEnrolled(db);

  r.get('/requests', session, enrolled, async (req, res) => {
    const status = req.query.status === undefined ? undefined : String(req.query.status);
    if (status !== undefined && !STATUSES.has(status))
      throw new BaseError('validation_failed', '"status" must be one of pending, approved, rejected, expired');
    // Funds-short approvals past their expiry show as expired, never as still payable.
    await expireFundsShort(db, req.memberSession!.companyId);
    const rows = await listRequests(db, req.memberSession!.companyId, null, status);
    res.json({ data: await Promise.all(rows.map((row) => toInboxRequest(db, plugins, row))) });
  });

  r.get('/requests/:id', session, enrolled, async (req, res) => {
    await expireFundsShort(db, req.memberSession!.companyId);
    const row = await inboxRequest(db, req.memberSession!.companyId, String(req.params.id));
    res.json(await toInboxRequest(db, plugins, row));
  });

  // What an approver weighs, beside the request (issue 47 §4): funds, the destinations' history, the policies in words.
  r.get('/requests/:id/facts', session, enrolled, async (req, res) => {
    const row = await inboxRequest(db, req.memberSession!.companyId, String(req.params.id));
    res.json(await requestFacts(common, row));
  });

  for (const vote of ['approve', 'reject'] as const) {
    r.post(`/requests/:id/${vote}`, session, enrolled, async (req, res) => {
      const s = req.memberSession!;
      const row = await inboxRequest(db, s.companyId, String(req.params.id));
      requireRoleAction(s, 'withdrawals:create', 'vote on withdrawal requests; owners and admins may');
      requireStepUp(s, clock(), stepUpMs);
      const out = await voteOnRequest(common, row.id, s.memberId, vote, { ip: req.ip ?? null, sessionId: s.id, companyId: s.companyId });
      const updated = await inboxRequest(db, s.companyId, String(row.id));
      const answer: ConsoleVoteAnswer = {
        request: await toInboxRequest(db, plugins, updated),
        message: out.message,
        ...(out.code ? { code: out.code, policyIds: out.policyIds } : {}),
        prepared: out.withdrawal !== undefined,
        ...(out.notPrepared !== undefined ? { reason: out.notPrepared } : {}),
        ...(out.sent !== undefined ? { sent: out.sent } : {}),
        ...(out.notSent !== undefined ? { notSent: out.notSent } : {}),
        withdrawal: out.withdrawal ?? null,
      };
      res.json(answer);
    });
  }

  // "Prepare now": an approved request whose withdrawal could not be built at the quorum (node down,
  // funds short). Idempotent: the withdrawal's key is the request's, so a second call answers the
  // same withdrawal. No step-up: the people already decided; this only retries the build.
  r.post('/requests/:id/prepare', session, enrolled, async (req, res) => {
    const s = req.memberSession!;
    const row = await inboxRequest(db, s.companyId, String(req.params.id));
    requireRoleAction(s, 'withdrawals:create', 'prepare approved withdrawal requests; owners and admins may');
    const out = await prepareApprovedRequest(common, row.id);
    await audit(db, {
      companyId: s.companyId,
      actorType: 'member',
      actorId: s.memberId,
      action: 'withdrawal_request.prepared',
      targetType: 'withdrawal_request',
      targetId: row.id,
      ip: req.ip ?? null,
      details: { sessionId: s.id, withdrawalId: out.withdrawal?.id ?? null },
    });
    const updated = await inboxRequest(db, s.companyId, String(row.id));
    res.json({
      request: await toInboxRequest(db, plugins, updated),
      message: `request ${row.id} prepared as withdrawal ${out.withdrawal?.id}`,
      prepared: true,
      ...(out.sent !== undefined ? { sent: out.sent } : {}),
      ...(out.notSent !== undefined ? { notSent: out.notSent } : {}),
      withdrawal: out.withdrawal ?? null,
    });
  });

  // Send (issue 42 §6): an approved request's withdrawal signed and broadcast through the API's own
  // path (reservations, one send per withdrawal). Moves funds, so owners and admins only, with a
  // step-up; a request whose quorum said `send` can be sent here too when sending at once failed.
  r.post('/requests/:id/send', session, enrolled, async (req, res) => {
    const s = req.memberSession!;
    const row = await inboxRequest(db, s.companyId, String(req.params.id));
    requireRoleAction(s, 'withdrawals:create', 'send approved withdrawals; owners and admins may');
    requireStepUp(s, clock(), stepUpMs);
    await refuseExpired(db, row);
    if (row.status !== 'approved') throw new BaseError('conflict', `withdrawal request ${row.id} is ${row.status}, not approved`);
    // Not prepared yet (funds were short, the node was down): prepared first, expiry checked there
    // (a quorum that said `send` sends it right there).
    if (row.withdrawal_id === null) await prepareApprovedRequest(common, row.id);
    const ready = await inboxRequest(db, s.companyId, String(row.id));
    const current = (await db('withdrawals').where({ id: ready.withdrawal_id }).first()) as WithdrawalRow;
    const out = UNSENT.has(current.status)
      ? (await sendApprovedRequest(common, ready, { memberId: s.memberId, ip: req.ip ?? null, sessionId: s.id })).withdrawal
      : await toWithdrawalView(db, plugins.chainTable(), current);
    const updated = await inboxRequest(db, s.companyId, String(row.id));
    res.json({ request: await toInboxRequest(db, plugins, updated), message: `request ${row.id} sent`, withdrawal: out });
  });
}
