import type { ConsoleApprovalSettings } from '@walletd/schemas';
import type { RequestHandler, Router } from 'express';
import { BaseError } from '@walletd/core';
import type { Common } from '../../platform/context';
import { audit } from '../../company/audit';
import { companyOnApproval } from './afterQuorum';
import type { Clock } from '../../platform/clock';
import { requireMfaEnrolled, requireRole } from '../../members/sessions/memberGuards';
import { requireStepUp } from '../../members/sessions/sessions';

/**
 * The company's default for what a withdrawal request's quorum does (issue 42 §6), used where no
 * triggered `approval_above` policy names one: `GET` for owners and admins, `PUT` owners only with
 * a step-up (it decides whether money leaves without another person's click), audited.
 */
export function mountApprovalSettingsRoutes(r: Router, common: Common, clock: Clock, session: RequestHandler): void {
  const { db } = common;
  const enrolled = requireMfaEnrolled(db);
  const answer = async (companyId: number): Promise<ConsoleApprovalSettings> => {
    const { value, own } = await companyOnApproval(common, companyId);
    return { onApproval: value, companyDefault: own, deploymentDefault: common.config.approvals.onApproval };
  };

  r.get('/approval-settings', session, enrolled, async (req, res) => {
    const s = req.memberSession!;
    requireRole(s, ['owner', 'admin'], 'see approval settings; owners and admins may');
    res.json(await answer(s.companyId));
  });

  r.put('/approval-settings', session, enrolled, async (req, res) => {
    const s = req.memberSession!;
    requireRole(s, ['owner'], 'change what a quorum does; owners may');
    requireStepUp(s, clock(), common.config.console.stepUpMs);
    const v = (req.body as { onApproval?: unknown } | undefined)?.onApproval;
    if (v !== 'send' && v !== 'wait_for_send' && v !== null)
      throw new BaseError('validation_failed', '"onApproval" must be "send", "wait_for_send" or null (the deployment\'s default)', {
        details: { field: 'onApproval' },
      });
    const before = (await companyOnApproval(common, s.companyId)).own;
    await db('companies').where({ id: s.companyId }).update({ on_approval: v });
    await audit(db, {
      companyId: s.companyId,
      actorType: 'member',
      actorId: s.memberId,
      action: 'company.on_approval_changed',
      targetType: 'company',
      targetId: s.companyId,
      ip: req.ip ?? null,
      details: { before, after: v, sessionId: s.id },
    });
    res.json(await answer(s.companyId));
  });
}
