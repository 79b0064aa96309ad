import { randomUUID } from 'node:crypto';
import express, { type Express } from 'express';
import { pinoHttp } from 'pino-http';
import { withRole } from '@walletd/core';
import { buildOpenApi } from '@walletd/schemas';
import type { Common } from './context';
import { authenticate, requirePlan } from './http/authenticate';
import { jsonBody } from './http/body';
import { methodNotAllowedOrNotFound } from './http/methodNotAllowed';
import { errorHandler } from './http/errorHandler';
import { httpMetrics } from './http/httpMetrics';
import { createRateLimiters, type RateLimiters } from './http/rateLimits';
import { textHygiene } from './http/textHygiene';
import { addressesRouter } from './routes/addresses';
import { dashboardOnlyRouter } from './routes/dashboardOnly';
import { eventsRouter } from './routes/events';
import { meRouter } from './routes/me';
import { probesRouter } from './routes/probes';
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

export function createApp(base: Common): App {
  const logger = withRole(base.logger, 'api');
  const common: Common = { ...base, logger };
  const { config, db } = common;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.server.trustProxy);
  app.set('json spaces', 0);

  if (common.metrics) app.use(httpMetrics(common.metrics));
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

  app.use(probesRouter(common));

  const limiters = createRateLimiters(db, config.rateLimit);
  app.use(limiters.perIp);

  const openapi = buildOpenApi(API_VERSION);
  app.get('/v1/openapi.json', (_req, res) => {
    res.json(openapi);
  });

  const v1 = express.Router();
  // Responses of the API are one caller's data, and some carry a secret shown once (webhook
  // signing secrets, sealed wallet secrets): no cache, shared or private, may keep any of them.
  v1.use((_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  // Authenticate before reading the body: an unauthenticated caller's bytes are never parsed.
  v1.use(authenticate(db, logger));
  v1.use(jsonBody(config.server.bodyLimitBytes));
  v1.use(textHygiene);
  v1.use(requirePlan);
  v1.use(dashboardOnlyRouter());
  v1.use(meRouter());
  v1.use(walletsRouter(common, limiters.writes));
  v1.use(addressesRouter(common));
  v1.use(transactionsRouter(common));
  v1.use(withdrawalsRouter(common, limiters.writes));
  v1.use(webhooksRouter(common, new DestinationPolicy(config.webhooks.allowCidrs), limiters.writes));
  v1.use(eventsRouter(common));
  app.use('/v1', v1);

  app.use(
    methodNotAllowedOrNotFound({
      '/healthz': ['get'],
      '/readyz': ['get'],
      ...(common.metrics ? { '/metrics': ['get'] } : {}),
      '/v1/openapi.json': ['get'],
    }),
  );
  app.use(errorHandler(logger));
  return { app, limiters };
}
