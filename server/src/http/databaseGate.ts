import type { RequestHandler } from 'express';
import { BaseError } from '@walletd/core';
import type { DatabaseHealth } from '../platform/health/databaseHealth';

/**
 * While the database takes queries and never answers (the watch's verdict, docs/operate/faults.md, "Database
 * deadlines"), a request that needs it fails at once with 503 naming the cause, instead of
 * waiting out the pool's deadlines with the others (and filling the pool for them).
 */
export function databaseGate(health: DatabaseHealth | undefined): RequestHandler {
  return (_req, _res, next) => {
    const silent = health?.unresponsive();
    if (!silent) return next();
    next(new BaseError('unavailable', `${silent}; retry later`, { details: { reason: 'database_unresponsive' } }));
  };
}
