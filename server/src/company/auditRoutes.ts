import type { RequestHandler, Router } from 'express';
import { BaseError } from '@walletd/core';
import type { Common } from '../platform/context';
import { type AuditFilter, listAudit } from './auditLog';
import { requireMfaEnrolled, requireRole } from '../members/sessions/memberGuards';

const invalid = (field: string, why: string) => new BaseError('validation_failed', `"${field}" ${why}`, { details: { field } });

const text = (v: unknown, field: string): string | undefined => {
  if (v === undefined || v === '') return undefined;
  if (typeof v !== 'string' || v.length > 254) throw invalid(field, 'must be one string of at most 254 characters');
  return v.trim() || undefined;
};

const time = (v: unknown, field: string): Date | undefined => {
  const t = text(v, field);
  if (t === undefined) return undefined;
  const d = new Date(t);
  if (!/^\d{4}-\d{2}-\d{2}/.test(t) || Number.isNaN(d.getTime()))
    throw invalid(field, 'must be a date and time such as 2026-03-01T12:00:00Z');
  return d;
};

/**
 * The audit log (`GET /console/api/audit`), owners and admins only, newest first. Filters:
 * `action` (a prefix: `policy.`), `member` (an email or member id), `from`/`to` (ISO times, `to`
 * excluded), `cursor` (the previous page's `nextCursor`), `limit` (1 to 200, default 50).
 */
export function mountAuditRoutes(r: Router, common: Common, session: RequestHandler): void {
  const { db } = common;
  r.get('/audit', session, requireMfaEnrolled(db), async (req, res) => {
    const s = req.memberSession!;
    requireRole(s, ['owner', 'admin'], 'read the audit log; owners and admins may');
    const q = req.query;
    const cursor = text(q.cursor, 'cursor');
    if (cursor !== undefined && !/^[1-9][0-9]{0,14}$/.test(cursor)) throw invalid('cursor', "must be a previous page's nextCursor");
    const limitText = text(q.limit, 'limit');
    const limit = limitText === undefined ? 50 : /^[0-9]{1,3}$/.test(limitText) ? Number(limitText) : 0;
    if (limit < 1 || limit > 200) throw invalid('limit', 'must be a number from 1 to 200');
    const filter: AuditFilter = {
      actionPrefix: text(q.action, 'action'),
      from: time(q.from, 'from'),
      to: time(q.to, 'to'),
      before: cursor === undefined ? undefined : Number(cursor),
      limit,
    };
    const member = text(q.member, 'member');
    if (member !== undefined) {
      const found = (await db('members')
        .where({ company_id: s.companyId })
        .andWhere((w) => (/^[0-9]{1,9}$/.test(member) ? w.where('id', Number(member)) : w.whereRaw('lower(email) = lower(?)', [member])))
        .first('id')) as { id: number } | undefined;
      // Nobody by that name in this company: no rows, as for any filter that matches nothing.
      if (!found) return void res.json({ data: [], nextCursor: null });
      filter.memberId = found.id;
    }
    res.json(await listAudit(db, s.companyId, filter));
  });
}
