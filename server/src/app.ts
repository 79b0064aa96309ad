import { randomUUID } from 'node:crypto';
import express, { type Express } from 'express';
import { pinoHttp } from 'pino-http';
import { BaseError } from '@walletd/core';
import { buildOpenApi } from '@walletd/schemas';
import type { Common } from './context';
import { authenticate, requirePlan } from './http/authenticate';
import { jsonBody } from './http/body';
import { errorHandler } from './http/errorHandler';
import { haltedChains } from './http/haltedChains';
import { createRateLimiters, type RateLimiters } from './http/rateLimits';
import { addressesRouter } from './routes/addresses';
import { dashboardOnlyRouter } from './routes/dashboardOnly';
import { eventsRouter } from './routes/events';
import { meRouter } from './routes/me';
import { transactionsRouter } from './routes/transactions';
import { walletsRouter } from './routes/wallets';
import { webhooksRouter } from './routes/webhooks';
import { withdrawalsRouter } from './routes/withdrawals';
import { DestinationPolicy } from './webhooks/destinationPolicy';

export const API_VERSION = '1.10.0';

export interface App {
  app: Express;
  limiters: RateLimiters;
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

export function createApp(common: Common): App {
  const { config, logger, db } = common;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.server.trustProxy);
  app.set('json spaces', 0);

  app.use(
    pinoHttp({
      logger,
      genReqId: (req, res) => {
        const incoming = req.headers['x-request-id'];
        const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
        res.setHeader('x-request-id', id);
        return id;
      },
      // Method, path and status only: headers carry keys, bodies carry addresses and amounts.
      serializers: {
        req: (req: { id?: unknown; method: string; url: string; remoteAddress?: string }) => ({
          id: req.id,
          method: req.method,
          url: req.url.split('?')[0],
          ip: req.remoteAddress,
        }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
      customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
    }),
  );

  // Probes stay outside the rate limiter: its counters live in the database they check.
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    try {
      await db.raw('select 1');
    } catch {
      res.status(503).json({ statusCode: 503, error: 'Service Unavailable', message: 'database unreachable', code: 'unavailable' });
      return;
    }
    // A chain the indexer stopped (its node serves another or an inconsistent chain) detects no deposits.
    const halted = await haltedChains(db, config.chains).catch(() => []);
    if (halted.length > 0) {
      const names = halted.map((h) => `${h.chain}/${h.network} (${h.reason})`).join(', ');
      res.status(503).json({
        statusCode: 503,
        error: 'Service Unavailable',
        message: `the indexer stopped following ${names}`,
        code: 'unavailable',
        haltedChains: halted,
      });
      return;
    }
    res.json({ status: 'ready' });
  });
  if (common.metrics) {
    const { registry } = common.metrics;
    app.get('/metrics', async (_req, res) => {
      res.setHeader('content-type', registry.contentType);
      res.send(await registry.metrics());
    });
  }

  const limiters = createRateLimiters(db, config.rateLimit);
  app.use(limiters.perIp);

  const openapi = buildOpenApi(API_VERSION);
  app.get('/v1/openapi.json', (_req, res) => {
    res.json(openapi);
  });

  const v1 = express.Router();
  // Authenticate before reading the body: an unauthenticated caller's bytes are never parsed.
  v1.use(authenticate(db, logger));
  v1.use(jsonBody(config.server.bodyLimitBytes));
  v1.use(requirePlan);
  v1.use(dashboardOnlyRouter());
  v1.use(meRouter());
  v1.use(walletsRouter(common, limiters.writes));
  v1.use(addressesRouter(common));
  v1.use(transactionsRouter(common));
  v1.use(withdrawalsRouter(common, limiters.writes));
  v1.use(webhooksRouter(common, new DestinationPolicy(config.webhooks.allowCidrs)));
  v1.use(eventsRouter(common));
  app.use('/v1', v1);

  app.use((req, _res, next) => {
    next(new BaseError('not_found', `No route ${req.method} ${req.path}`));
  });
  app.use(errorHandler(logger));
  return { app, limiters };
}
