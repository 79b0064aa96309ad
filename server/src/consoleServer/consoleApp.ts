import express, { type Express } from 'express';
import { withRole } from '@walletd/core';
import type { Common } from '../platform/context';
import { accessLog } from '../http/accessLog';
import { databaseGate } from '../http/databaseGate';
import { errorHandler } from '../http/errorHandler';
import { tlsHeaders } from '../http/tlsHeaders';
import { type Clock, systemClock } from '../platform/clock';
import { consoleAssets } from './consoleAssets';
import { consoleRouter } from './consoleRouter';
import { limitConcurrentHashes } from '../members/signIn/passwords';

/**
 * No inline script or style, nothing from another origin, never framed: the pages are Vite's
 * built files from this origin, and the API they call is the same origin's /console/api.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

/**
 * The console's own HTTP server (role `console`, its own port): kept apart from the API so the
 * API never reads a cookie and the console never reads an API key. It serves the pages at /console/
 * and the API they call at /console/api, one origin.
 */
export function createConsoleApp(base: Common, clock: Clock = systemClock): Express {
  const logger = withRole(base.logger, 'console');
  const common: Common = { ...base, logger };
  limitConcurrentHashes(common.config.console.maxConcurrentHashes);
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', common.config.server.trustProxy);
  app.set('etag', false);
  app.use(accessLog(logger));
  app.use(tlsHeaders(common.config.console.secureCookies));
  app.use((_req, res, next) => {
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Content-Security-Policy', CONSOLE_CSP);
    // Links carry one-time tokens in their path: no page may send its address onward.
    res.setHeader('Referrer-Policy', 'no-referrer');
    next();
  });
  app.use('/console/api', databaseGate(common.databaseHealth), consoleRouter(common, clock));
  app.use('/console', consoleAssets(logger));
  app.use(errorHandler(logger, common.databaseHealth));
  return app;
}
