import express, { type Express } from 'express';
import { BaseError, withRole } from '@walletd/core';
import type { Common } from '../context';
import { errorHandler } from '../../http/errorHandler';
import { listenBornWithPrototypes } from '../../http/expressServer';
import { methodNotAllowedOrNotFound } from '../../http/methodNotAllowed';
import { probesRouter } from './probes';

/**
 * `server.probesPort`'s listener: /healthz, /readyz and /metrics and nothing else, so that a
 * process running only the dispatcher or the indexer can be probed and scraped (its lease, chain
 * gauges and delivery counters live in it) without also answering the API.
 */
export function createProbesApp(base: Common): Express {
  const logger = withRole(base.logger, 'probes');
  const common: Common = { ...base, logger };
  const app = express();
  listenBornWithPrototypes(app);
  app.disable('x-powered-by');
  app.set('etag', false);
  probesRouter(common, app.router);
  const probes = /^\/(healthz|readyz|metrics)\/?$/;
  // The API's paths are not known here: anything but the probes is 404, a probe's other methods 405.
  const wrongMethod = methodNotAllowedOrNotFound({ '/healthz': ['get'], '/readyz': ['get'], '/metrics': ['get'] });
  app.use((req, res, next) => {
    if (probes.test(req.path)) wrongMethod(req, res, next);
    else next(new BaseError('not_found', `No route ${req.method} ${req.path}`));
  });
  app.use(errorHandler(logger, common.databaseHealth));
  return app;
}
