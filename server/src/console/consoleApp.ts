import express, { type Express } from 'express';
import { withRole } from '@walletd/core';
import type { Common } from '../context';
import { accessLog } from '../http/accessLog';
import { errorHandler } from '../http/errorHandler';
import { type Clock, systemClock } from './clock';
import { consoleRouter } from './consoleRouter';

/**
 * The console's own HTTP server (role `console`, its own port): kept apart from the API so the
 * API never reads a cookie and the console never reads an API key. The pages come next; today it
 * serves the sign-in API under /console/api.
 */
export function createConsoleApp(base: Common, clock: Clock = systemClock): Express {
  const logger = withRole(base.logger, 'console');
  const common: Common = { ...base, logger };
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', common.config.server.trustProxy);
  app.set('etag', false);
  app.use(accessLog(logger));
  app.use((_req, res, next) => {
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'");
    res.setHeader('X-Content-Type-Options', 'nosniff');
    next();
  });
  app.use('/console/api', consoleRouter(common, clock));
  app.use(errorHandler(logger));
  return app;
}
