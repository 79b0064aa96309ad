import type { Request, RequestHandler } from 'express';
import { rateLimit, type Options, type RateLimitInfo } from 'express-rate-limit';
import { BaseError, type Db } from '@walletd/core';
import { perIpLimit } from './perIpLimit';
import { PgRateLimitStore } from './pgRateLimitStore';

export interface RateLimiters {
  /** 300/min per client IP on every endpoint (spec 8), counted before authentication. */
  perIp: RequestHandler;
  /** 20/min per API key and endpoint on value-moving writes (spec 8). */
  writes: RequestHandler;
  /** Timers to stop at shutdown. */
  stores: { shutdown(): void }[];
}

function onLimit(what: string): Options['handler'] {
  return (request, res, next, options) => {
    const req = request as typeof request & { rateLimit?: RateLimitInfo };
    const reset = req.rateLimit?.resetTime?.getTime() ?? Date.now() + options.windowMs;
    const seconds = Math.max(1, Math.ceil((reset - Date.now()) / 1000));
    res.setHeader('Retry-After', String(seconds));
    next(
      new BaseError('rate_limited', `Rate limit of ${req.rateLimit?.limit ?? ''} ${what} per minute exceeded; retry in ${seconds} seconds`),
    );
  };
}

/**
 * Per key and per endpoint: the route pattern, not the concrete path, so /wallets/1 and /wallets/2
 * share a budget. Routing ignores case, so the mount point is lowered too: `/V1/withdrawals` reaches
 * the same route as `/v1/withdrawals` and must spend the same budget (it once had its own, doubling it).
 */
export function writeBudgetKey(req: Request): string {
  return `${req.auth?.keyId ?? 'anon'}:${req.method} ${req.baseUrl.toLowerCase()}${req.route?.path ?? req.path.toLowerCase()}`;
}

export function createRateLimiters(db: Db, limits: { perIpPerMinute: number; writesPerKeyPerMinute: number }): RateLimiters {
  const writeStore = new PgRateLimitStore(db, 'write:');
  const common = {
    windowMs: 60_000,
    standardHeaders: 'draft-6' as const, // RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset (seconds)
    legacyHeaders: false,
    passOnStoreError: false,
  };
  // Hot path (every request): its own middleware, which also reads the caller's key in the same statement.
  const perIp = perIpLimit(db, limits.perIpPerMinute);
  const writes = rateLimit({
    ...common,
    limit: limits.writesPerKeyPerMinute,
    store: writeStore,
    keyGenerator: writeBudgetKey,
    handler: onLimit('value-moving writes'),
  });
  return { perIp, writes, stores: [perIp, writeStore] };
}
