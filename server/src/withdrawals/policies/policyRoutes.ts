import type { Request, RequestHandler, Router } from 'express';
import { BaseError } from '@walletd/core';
import type { Knex } from 'knex';
import type { Common } from '../../platform/context';
import { addPolicy, getPolicy, loadPolicies, setPolicyEnabled, updatePolicy } from './policies';
import { policyInputFromForm } from './policyForm';
import { audit } from '../../company/audit';
import type { Clock } from '../../platform/clock';
import { requireMfaEnrolled, requireRole } from '../../members/sessions/memberGuards';
import { type ConsolePolicy, toConsolePolicy, walletNames } from './policyView';
import { requireStepUp } from '../../members/sessions/sessions';

const MANAGERS = ['owner', 'admin'] as const;

const policyId = (v: unknown): number => {
  const id = Number(v);
  if (!Number.isSafeInteger(id) || id < 1) throw new BaseError('not_found', 'No such policy');
  return id;
};

/**
 * Spending policies (`/console/api/policies`): owners and admins read and change them (policies
 * are no API-key action, so the roles are named here); every change needs an enrolled
 * authenticator and a step-up, and is audited with the rule in words before and after.
 */
export function mountPolicyRoutes(r: Router, common: Common, clock: Clock, session: RequestHandler): void {
  const { db } = common;
  const stepUpMs = common.config.console.stepUpMs;
  const enrolled = requireMfaEnrolled(db);
  const record = (trx: Knex.Transaction, req: Request, action: string, p: ConsolePolicy, details: Record<string, unknown>) => {
    const s = req.memberSession!;
    return audit(trx, {
      companyId: s.companyId,
      actorType: 'member',
      actorId: s.memberId,
      action,
      targetType: 'policy',
      targetId: p.id,
      ip: req.ip ?? null,
      details: { name: p.name, ...details },
    });
  };
  const view = async (companyId: number, p: Awaited<ReturnType<typeof getPolicy>>) =>
    toConsolePolicy(common, p, await walletNames(db, companyId));

  r.get('/policies', session, enrolled, async (req, res) => {
    const s = req.memberSession!;
    requireRole(s, MANAGERS, 'see spending policies; owners and admins may');
    const names = await walletNames(db, s.companyId);
    res.json({ data: (await loadPolicies(db, s.companyId)).map((p) => toConsolePolicy(common, p, names)) });
  });

  /** Who may change policies, checked before the body is read: a viewer learns only that it may not. */
  const manager: RequestHandler = (req, _res, next) => {
    try {
      const s = req.memberSession!;
      requireRole(s, MANAGERS, 'change spending policies; owners and admins may');
      requireStepUp(s, clock(), stepUpMs);
      next();
    } catch (e) {
      next(e);
    }
  };

  r.post('/policies', session, enrolled, manager, async (req, res) => {
    const s = req.memberSession!;
    const input = await policyInputFromForm(common, s.companyId, req.body ?? {});
    // Each change and its audit row commit together.
    const out = await db.transaction(async (trx) => {
      const p = await view(s.companyId, await addPolicy(trx, input));
      await record(trx, req, 'policy.created', p, { rule: p.sentence });
      return p;
    });
    res.status(201).json(out);
  });

  r.put('/policies/:id', session, enrolled, manager, async (req, res) => {
    const s = req.memberSession!;
    const before = await view(s.companyId, await getPolicy(db, s.companyId, policyId(req.params.id)));
    const input = await policyInputFromForm(common, s.companyId, req.body ?? {});
    const out = await db.transaction(async (trx) => {
      const p = await view(s.companyId, await updatePolicy(trx, before.id, input));
      await record(trx, req, 'policy.changed', p, { before: before.sentence, rule: p.sentence });
      return p;
    });
    res.json(out);
  });

  for (const [verb, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    r.post(`/policies/:id/${verb}`, session, enrolled, manager, async (req, res) => {
      const s = req.memberSession!;
      const out = await db.transaction(async (trx) => {
        const p = await view(s.companyId, await setPolicyEnabled(trx, policyId(req.params.id), enabled, s.companyId));
        await record(trx, req, `policy.${verb}d`, p, { rule: p.sentence });
        return p;
      });
      res.json(out);
    });
  }
}
