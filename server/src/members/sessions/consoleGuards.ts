import { timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { BaseError, type Db } from '@walletd/core';
import type { Clock } from '../../platform/clock';
import { CSRF_COOKIE, CSRF_HEADER, SESSION_COOKIE, readCookie } from './cookies';
import { type MemberSession, type SessionLimits, findSession } from './sessions';

declare global {
  namespace Express {
    interface Request {
      memberSession?: MemberSession;
    }
  }
}

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The console is for people: an API key is refused outright (spec 5.6), never just ignored. */
export const refuseApiKeys: RequestHandler = (req, _res, next) => {
  if (req.headers.authorization) {
    next(new BaseError('dashboard_only', 'The console takes a signed-in member, never an API key'));
    return;
  }
  next();
};

/**
 * A state-changing request from a browser must come from the console's own origin. Browsers send
 * Origin on every cross-site POST/DELETE; a request without one (a script, curl) still needs the
 * CSRF token once signed in.
 */
export const sameOrigin: RequestHandler = (req, _res, next) => {
  const origin = req.headers.origin;
  if (STATE_CHANGING.has(req.method) && origin !== undefined && origin !== `${req.protocol}://${req.get('host')}`) {
    next(new BaseError('csrf_failed', 'Cross-origin request refused'));
    return;
  }
  next();
};

const equal = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

function csrfOk(req: Request, session: MemberSession): boolean {
  const header = req.headers[CSRF_HEADER];
  const cookie = readCookie(req, CSRF_COOKIE);
  return typeof header === 'string' && cookie !== undefined && equal(header, cookie) && equal(header, session.csrf);
}

/** Loads the session from its cookie (401 without a live one) and checks CSRF on state changes. */
export function requireSession(db: Db, clock: Clock, limits: SessionLimits): RequestHandler {
  return async (req, _res, next) => {
    try {
      const token = readCookie(req, SESSION_COOKIE);
      const session = token ? await findSession(db, token, clock(), limits) : null;
      if (!session) throw new BaseError('unauthorized', 'Not signed in, or the session ended');
      if (STATE_CHANGING.has(req.method) && !csrfOk(req, session)) {
        throw new BaseError('csrf_failed', `Missing or wrong ${CSRF_HEADER} header`);
      }
      req.memberSession = session;
      next();
    } catch (e) {
      next(e);
    }
  };
}
