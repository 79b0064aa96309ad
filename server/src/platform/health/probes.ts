import { Router } from 'express';
import type { Common } from '../context';
import { checkReadiness } from './readiness';
import { UNAVAILABLE_RETRY_AFTER_SECONDS, sendError } from '../../http/errorHandler';
import { refreshDatabaseGauges } from '../metrics/databaseGauges';

/**
 * The promise's value, or 'silent' as soon as `silent()` says so (polled): the readiness query of
 * a database that takes it and never answers ends by the watch's verdict, not the pool's deadlines
 * (the query runs on, bounded by those).
 */
async function unlessSilent<T>(p: Promise<T>, silent: () => boolean): Promise<T | 'silent'> {
  let timer: NodeJS.Timeout | undefined;
  const verdict = new Promise<'silent'>((resolve) => {
    const poll = () => {
      if (silent()) resolve('silent');
      else timer = setTimeout(poll, 50);
    };
    poll();
  });
  p.catch(() => undefined);
  return Promise.race([p, verdict]).finally(() => clearTimeout(timer));
}

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
      const unresponsive = common.databaseHealth?.unresponsive() ? { reason: 'database_unresponsive' } : {};
      sendError(res, 503, fatal, { code: 'unavailable', ...unresponsive });
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
      // A database that takes the query and never answers: the probe still answers, within its deadline.
      // A slow answer (a loaded host, a pool creating its first connection) is waited for while the
      // watch's own query is answered; one the watch has waited on past readinessTimeoutMs is not.
      const limit = common.config.database.readinessTimeoutMs;
      const readiness = await unlessSilent(
        checkReadiness(common.db, common.config),
        () => (common.databaseHealth?.waitingMs() ?? 0) > limit,
      );
      if (readiness === 'silent') {
        res.setHeader('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
        const message = `the database has not answered for ${limit} ms`;
        sendError(res, 503, message, { code: 'unavailable', reason: 'database_unresponsive' });
        return;
      }
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
