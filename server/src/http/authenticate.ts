import type { RequestHandler } from 'express';
import {
  BaseError,
  ROLE_ACTIONS,
  hashApiKey,
  ipInList,
  isAction,
  isWellFormedApiKey,
  type Action,
  type Db,
  type Logger,
  type Plan,
  type Role,
} from '@walletd/core';
import type { AuthContext } from './authContext';

interface KeyRow {
  id: number;
  hint: string;
  name: string | null;
  company_id: number;
  company_name: string;
  plan: Plan;
  actions: string[];
  wallet_ids: number[] | null;
  allow_ips: string[] | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  created_at: Date;
  created_by: number | null;
  member_role: Role | null;
  member_removed_at: Date | null;
}

// One answer for every way a key can be wrong, so a caller learns nothing from the difference.
const UNAUTHORIZED = 'Missing or invalid API key';

export function authenticate(db: Db, logger: Logger): RequestHandler {
  return async (req, _res, next) => {
    try {
      const header = req.headers.authorization;
      const match = header ? /^Bearer ([^\s]+)$/i.exec(header) : null;
      const key = match?.[1];
      if (!key || !isWellFormedApiKey(key)) throw new BaseError('unauthorized', UNAUTHORIZED);
      // The lookup is by a SHA-256 of a high-entropy secret: the index probe reveals nothing useful.
      const row = (await db('api_keys as k')
        .join('companies as c', 'c.id', 'k.company_id')
        .leftJoin('members as m', 'm.id', 'k.created_by')
        .where('k.key_hash', hashApiKey(key))
        .first(
          'k.id',
          'k.hint',
          'k.name',
          'k.company_id',
          'c.name as company_name',
          'c.plan',
          'k.actions',
          'k.wallet_ids',
          'k.allow_ips',
          'k.expires_at',
          'k.revoked_at',
          'k.created_at',
          'k.created_by',
          'm.role as member_role',
          'm.removed_at as member_removed_at',
        )) as KeyRow | undefined;
      if (!row || row.revoked_at || (row.expires_at && row.expires_at.getTime() <= Date.now())) {
        throw new BaseError('unauthorized', UNAUTHORIZED);
      }
      if (row.allow_ips && row.allow_ips.length > 0 && !ipInList(req.ip ?? '', row.allow_ips)) {
        throw new BaseError('ip_not_allowed', 'This API key is not allowed from this IP address');
      }
      const granted = row.actions.filter(isAction);
      // Keys made by the operator without a member (created_by null) are capped by nothing but their grant.
      const role: Role | null = row.created_by === null ? 'owner' : row.member_removed_at ? null : row.member_role;
      const ceiling = role ? ROLE_ACTIONS[role] : new Set<Action>();
      const auth: AuthContext = {
        keyId: row.id,
        hint: row.hint,
        name: row.name,
        companyId: row.company_id,
        companyName: row.company_name,
        plan: row.plan,
        granted,
        effective: new Set(granted.filter((a) => ceiling.has(a))),
        walletIds: row.wallet_ids === null ? null : new Set(row.wallet_ids),
        allowIps: row.allow_ips,
        expiresAt: row.expires_at,
        createdAt: row.created_at,
        creator: row.created_by === null ? null : { memberId: row.created_by, role },
      };
      req.auth = auth;
      // Throttled bookkeeping: at most one write a minute per key, off the request's critical path.
      db('api_keys')
        .where('id', row.id)
        .andWhere((q) => q.whereNull('last_used_at').orWhere('last_used_at', '<', db.raw("now() - interval '1 minute'")))
        .update({ last_used_at: db.fn.now() })
        .catch((err: unknown) => logger.warn({ err }, 'could not record key use'));
      next();
    } catch (e) {
      next(e);
    }
  };
}

/** 402 until the company has a plan; /me keeps working so a caller can see why. */
export const requirePlan: RequestHandler = (req, _res, next) => {
  if (req.auth?.plan === 'none' && req.path !== '/me') {
    next(new BaseError('plan_required', 'The company has no active plan yet'));
    return;
  }
  next();
};
