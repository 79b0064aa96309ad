import type { RequestHandler } from 'express';
import {
  BaseError,
  ROLE_ACTIONS,
  hashApiKey,
  ipInList,
  isAction,
  isWellFormedApiKey,
  runPrepared,
  type Action,
  type Db,
  type Logger,
  type Role,
} from '@walletd/core';
import type { AuthContext } from './authContext';
import { KEY_ROW, type KeyRow } from './keyRow';

// One answer for every way a key can be wrong, so a caller learns nothing from the difference.
const UNAUTHORIZED = 'Missing or invalid API key';

/** How often a key's `last_used_at` is written (a day's precision is what people read from it). */
const LAST_USED_EVERY_MS = 60_000;

export function authenticate(db: Db, logger: Logger): RequestHandler {
  // When this process last wrote each key's last_used_at: a request in between writes nothing (the
  // UPDATE's own WHERE keeps other processes to one write a minute too). Bounded: cleared when large.
  const lastUseWritten = new Map<number, number>();
  return async (req, _res, next) => {
    try {
      const header = req.headers.authorization;
      const match = header ? /^Bearer ([^\s]+)$/i.exec(header) : null;
      const key = match?.[1];
      if (!key) throw new BaseError('unauthorized', UNAUTHORIZED);
      // The per-IP limiter usually read the row already, in its own statement, for this same header
      // (perIpLimit.ts: it checked the shape and checksum and hashed the key). Otherwise: the lookup
      // is by a SHA-256 of a high-entropy secret, so the index probe reveals nothing useful.
      let row: KeyRow | undefined;
      if (req.prefetchedKey?.bearer === key) row = req.prefetchedKey.row ?? undefined;
      else if (!isWellFormedApiKey(key)) throw new BaseError('unauthorized', UNAUTHORIZED);
      else row = (await runPrepared<KeyRow>(db, KEY_ROW, [hashApiKey(key)]))[0];
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
      // Throttled bookkeeping: at most one write a minute per key and process, off the request's critical path.
      const now = Date.now();
      if ((lastUseWritten.get(row.id) ?? 0) <= now - LAST_USED_EVERY_MS) {
        if (lastUseWritten.size > 10_000) lastUseWritten.clear();
        lastUseWritten.set(row.id, now);
        db('api_keys')
          .where('id', row.id)
          .andWhere((q) => q.whereNull('last_used_at').orWhere('last_used_at', '<', db.raw("now() - interval '1 minute'")))
          .update({ last_used_at: db.fn.now() })
          .catch((err: unknown) => logger.warn({ err }, 'could not record key use'));
      }
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
