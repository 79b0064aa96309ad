import type { RequestHandler } from 'express';
import { BaseError, hashApiKey, ipInList, isWellFormedApiKey, runPrepared, type Db, type Logger } from '@walletd/core';
import { KEY_ROW } from './keyRow';
import { keyState } from './keyState';

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
      let text: string | null | undefined;
      if (req.prefetchedKey?.bearer === key) text = req.prefetchedKey.text;
      else if (!isWellFormedApiKey(key)) throw new BaseError('unauthorized', UNAUTHORIZED);
      else text = (await runPrepared<{ key: string }>(db, KEY_ROW, [hashApiKey(key)]))[0]?.key;
      const state = text ? keyState(text) : undefined;
      if (!state || state.revoked || (state.expiresAtMs !== null && state.expiresAtMs <= Date.now())) {
        throw new BaseError('unauthorized', UNAUTHORIZED);
      }
      const auth = state.auth;
      if (auth.allowIps && auth.allowIps.length > 0 && !ipInList(req.ip ?? '', auth.allowIps)) {
        throw new BaseError('ip_not_allowed', 'This API key is not allowed from this IP address');
      }
      req.auth = auth;
      // Throttled bookkeeping: at most one write a minute per key and process, off the request's critical path.
      const now = Date.now();
      if ((lastUseWritten.get(auth.keyId) ?? 0) <= now - LAST_USED_EVERY_MS) {
        if (lastUseWritten.size > 10_000) lastUseWritten.clear();
        lastUseWritten.set(auth.keyId, now);
        db('api_keys')
          .where('id', auth.keyId)
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
