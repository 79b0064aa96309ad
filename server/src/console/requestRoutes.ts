import type { RequestHandler, Router } from 'express';
import { BaseError } from '@walletd/core';
import type { Common } from '../context';
import { audit } from '../services/audit';
import { listRequests, prepareApprovedRequest, voteOnRequest } from '../services/withdrawals/requests';
import type { Clock } from './clock';
import { inboxRequest, toInboxRequest } from './inboxView';
import { requireMfaEnrolled, requireRoleAction } from './memberGuards';
import { requireStepUp } from './sessions';

const STATUSES = new Set(['pending', 'approved', 'rejected']);

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
      throw new BaseError('validation_failed', '"status" must be one of pending, approved, rejected');
    const rows = await listRequests(db, req.memberSession!.companyId, null, status);
    res.json({ data: await Promise.all(rows.map((row) => toInboxRequest(db, plugins, row))) });
  });

  r.get('/requests/:id', session, enrolled, async (req, res) => {
    const row = await inboxRequest(db, req.memberSession!.companyId, String(req.params.id));
    res.json(await toInboxRequest(db, plugins, row));
  });

  for (const vote of ['approve', 'reject'] as const) {
    r.post(`/requests/:id/${vote}`, session, enrolled, async (req, res) => {
      const s = req.memberSession!;
      const row = await inboxRequest(db, s.companyId, String(req.params.id));
      requireRoleAction(s, 'withdrawals:create', 'vote on withdrawal requests; owners and admins may');
      requireStepUp(s, clock(), stepUpMs);
      const out = await voteOnRequest(common, row.id, s.memberId, vote, { ip: req.ip ?? null, sessionId: s.id, companyId: s.companyId });
      const updated = await inboxRequest(db, s.companyId, String(row.id));
      res.json({
        request: await toInboxRequest(db, plugins, updated),
        message: out.message,
        ...(out.code ? { code: out.code, policyIds: out.policyIds } : {}),
        prepared: out.withdrawal !== undefined,
        ...(out.notPrepared !== undefined ? { reason: out.notPrepared } : {}),
        withdrawal: out.withdrawal ?? null,
      });
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
      withdrawal: out.withdrawal ?? null,
    });
  });
}
