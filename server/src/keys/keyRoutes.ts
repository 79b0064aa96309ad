import type { ConsoleCreatedKey, ConsoleKeyList } from '@walletd/schemas';
import type { RequestHandler, Router } from 'express';
import { BaseError } from '@walletd/core';
import type { Common } from '../platform/context';
import { createApiKey, listApiKeys, revokeApiKey } from './apiKeys';
import { audit } from '../company/audit';
import type { Clock } from '../platform/clock';
import { parseKeyInput } from './keyInput';
import { actionCatalog, mayRevoke, toKeyViews } from './keyView';
import { requireMfaEnrolled, requireRoleAction } from '../members/sessions/memberGuards';
import { type MemberSession, requireStepUp } from '../members/sessions/sessions';

/**
 * The company's API keys (`/console/api/keys`), behind `requireSession` (and its CSRF check) and an
 * enrolled authenticator. Any member may list them (never a secret). Creating one needs a role
 * that makes keys (not a viewer), every granted action within that role (the key acts for its
 * creator and stays capped by the creator's role), and a step-up; the secret is answered once.
 * Revoking is immediate: `/v1` authentication reads the key row on every request, with no cache.
 */
export function mountKeyRoutes(r: Router, common: Common, clock: Clock, session: RequestHandler): void {
  const { db } = common;
  const stepUpMs = common.config.console.stepUpMs;
  const enrolled = requireMfaEnrolled(db);

  /** The key of this company with that id, or 404 whether it is another company's or none. */
  const companyKey = async (companyId: number, rawId: string) => {
    const id = /^[1-9][0-9]{0,15}$/.test(rawId) ? Number(rawId) : null;
    const row = id === null ? undefined : await db('api_keys').where({ id, company_id: companyId }).first('id', 'created_by', 'revoked_at');
    if (!row) throw new BaseError('not_found', `API key ${rawId} does not exist`);
    return row as { id: number; created_by: number | null; revoked_at: Date | null };
  };

  /** Who did it, from where, to which key; never the secret (nor its hint). */
  const keyAudit = (s: MemberSession, action: string, keyId: number, ip: string | null, details: Record<string, unknown>) =>
    audit(db, {
      companyId: s.companyId,
      actorType: 'member',
      actorId: s.memberId,
      action,
      targetType: 'api_key',
      targetId: keyId,
      ip,
      details,
    });

  r.get('/keys', session, enrolled, async (req, res) => {
    const s = req.memberSession!;
    const views = await toKeyViews(db, s, await listApiKeys(db, s.companyId));
    const list: ConsoleKeyList = { data: views.reverse(), actions: actionCatalog(s.role), mayCreate: s.role !== 'viewer' };
    res.json(list);
  });

  r.post('/keys', session, enrolled, async (req, res) => {
    const s = req.memberSession!;
    if (s.role === 'viewer') throw new BaseError('role_insufficient', 'Your role (viewer) may not create API keys');
    const input = parseKeyInput(req.body);
    for (const a of input.actions) requireRoleAction(s, a, `grant ${a} to an API key (a key can do no more than its creator)`);
    requireStepUp(s, clock(), stepUpMs);
    const { key, record } = await createApiKey(db, { companyId: s.companyId, createdBy: s.memberId, ...input });
    await keyAudit(s, 'api_key.created', record.id, req.ip ?? null, {
      name: record.name,
      actions: record.actions,
      walletIds: record.walletIds,
      allowIps: record.allowIps,
      expiresAt: record.expiresAt,
      sessionId: s.id,
    });
    const [view] = await toKeyViews(db, s, [record]);
    const created: ConsoleCreatedKey = { key, record: view!, note: 'the key is shown once; store it now' };
    res.status(201).json(created);
  });

  r.post('/keys/:id/revoke', session, enrolled, async (req, res) => {
    const s = req.memberSession!;
    const row = await companyKey(s.companyId, String(req.params.id));
    if (!mayRevoke(s, row.created_by))
      throw new BaseError(
        'role_insufficient',
        `Your role (${s.role}) may revoke only the API keys you created; owners and admins may revoke any`,
      );
    const record = await revokeApiKey(db, row.id);
    // Revoking twice changes nothing and is recorded once.
    if (!row.revoked_at) await keyAudit(s, 'api_key.revoked', row.id, req.ip ?? null, { name: record.name, sessionId: s.id });
    const [view] = await toKeyViews(db, s, [record]);
    res.json(view);
  });
}
