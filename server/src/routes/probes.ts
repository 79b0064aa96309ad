import { Router } from 'express';
import type { Common } from '../context';
import { checkReadiness } from '../health/readiness';
import { UNAVAILABLE_RETRY_AFTER_SECONDS, sendError } from '../http/errorHandler';
import { refreshDatabaseGauges } from '../metrics/databaseGauges';

/**
 * Liveness, readiness and metrics: outside /v1, authentication and the rate limiter (its counters
 * live in the database they check). Registered on `r` (the app passes its own router: a nested
 * router costs every request that passes it).
 */
export function probesRouter(common: Common, r: Router = Router()): Router {
  // Fails only when the process cannot recover by itself (its embedded PostgreSQL could not be
  // restarted), so an orchestrator restarts it; a database that is down or recovering is /readyz's.
  r.get('/healthz', (_req, res) => {
    const fatal = common.databaseHealth?.fatal() ?? null;
    if (fatal) {
      sendError(res, 503, fatal, { code: 'unavailable' });
      return;
    }
    res.json({ status: 'ok' });
  });
  r.get('/readyz', async (_req, res, next) => {
    try {
      const db = await common.databaseHealth?.problem();
      if (db) {
        res.setHeader('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
        sendError(res, 503, db.message, { code: 'unavailable', reason: db.reason });
        return;
      }
      const readiness = await checkReadiness(common.db, common.config);
      if (readiness.ready) {
        res.json({ status: 'ready', chains: readiness.chains });
        return;
      }
      res.setHeader('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
      if ('database' in readiness) {
        sendError(res, 503, 'database unreachable', { code: 'unavailable' });
        return;
      }
      const notReady = readiness.chains.filter((c) => !c.ready).map((c) => `${c.chain}/${c.network}: ${c.reason}`);
      sendError(res, 503, `not ready: ${notReady.join('; ')}`, { code: 'unavailable', chains: readiness.chains });
    } catch (err) {
      next(err);
    }
  });
  if (common.metrics) {
    const { metrics } = common;
    const { registry } = metrics;
    r.get('/metrics', async (_req, res, next) => {
      try {
        // A database that is down leaves these at their last values; the rest is still served.
        await refreshDatabaseGauges(common.db, metrics, common.config.chains).catch((err: unknown) =>
          common.logger.warn({ err }, 'metrics: could not read the delivery backlog, withdrawals and drifts'),
        );
        res.setHeader('content-type', registry.contentType);
        res.send(await registry.metrics());
      } catch (err) {
        next(err);
      }
    });
  }
  return r;
}
