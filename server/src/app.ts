import express, { type Express } from 'express';
import { withRole } from '@walletd/core';
import { buildOpenApi } from '@walletd/schemas';
import type { Common } from './platform/context';
import { accessLog } from './http/accessLog';
import { HSTS } from './http/tlsHeaders';
import { displayTextHygiene } from './http/displayText';
import { authenticate, requirePlan } from './http/authenticate';
import { jsonBody } from './http/body';
import { methodNotAllowedOrNotFound } from './http/methodNotAllowed';
import { databaseGate } from './http/databaseGate';
import { errorHandler } from './http/errorHandler';
import { listenBornWithPrototypes } from './http/expressServer';
import { httpMetrics } from './http/httpMetrics';
import { fastJson } from './http/jsonResponse';
import { createRateLimiters, type RateLimiters } from './http/rateLimits';
import { series } from './http/series';
import { textHygiene } from './http/textHygiene';
import { setTrustProxy } from './http/trustProxy';
import { addressesRouter } from './wallets/addressesApi';
import { dashboardOnly } from './http/dashboardOnly';
import { eventsRouter } from './webhooks/eventsApi';
import { reconciliationRouter } from './reconciliation/reconciliationApi';
import { gasStationRouter } from './sweeps/gasStation/gasStationApi';
import { sweepRulesRouter } from './sweeps/sweepRulesApi';
import { meRouter } from './keys/meApi';
import { probesRouter } from './platform/health/probes';
import { transactionsRouter } from './wallets/transactionsApi';
import { walletsRouter } from './wallets/walletsApi';
import { webhooksRouter } from './webhooks/webhooksApi';
import { withdrawalsRouter } from './withdrawals/withdrawalsApi';
import { addressBookRouter } from './withdrawals/addressBook/addressBookApi';
import { DestinationPolicy } from './webhooks/destinationPolicy';

export const API_VERSION = '1.10.0';

export interface App {
  app: Express;
  limiters: RateLimiters;
}

export function createApp(base: Common): App {
  const logger = withRole(base.logger, 'api');
  const common: Common = { ...base, logger };
  const { config, db } = common;
  const app = express();
  // Requests and responses made with the app's prototypes (http/expressServer.ts): `app.listen` and `serve` alike.
  listenBornWithPrototypes(app);
  app.disable('x-powered-by');
  setTrustProxy(app, config.server.trustProxy);
  app.set('json spaces', 0);
  // No ETag: every /v1 answer is `Cache-Control: no-store` (below), so no client keeps a copy to
  // revalidate, and hashing every body was measurable on the hot read path (bench/README.md, `api`).
  app.set('etag', false);
  // res.json without Express's general send path, byte for byte the same answer (http/jsonResponse.ts).
  fastJson(app);

  const metrics = common.metrics ? httpMetrics(common.metrics) : undefined;
  if (metrics) app.use(metrics);
  app.use(accessLog(logger));

  probesRouter(common, app.router);

  const limiters = createRateLimiters(db, config.rateLimit);
  app.use(limiters.perIp);

  const openapi = buildOpenApi(API_VERSION, common.plugins.chainTable().chains());
  app.get('/v1/openapi.json', (_req, res) => {
    res.json(openapi);
  });

  const v1 = express.Router();
  // One layer for what every /v1 request passes (a router layer each cost every request a pass).
  v1.use(
    series(
      // Responses of the API are one caller's data, and some carry a secret shown once (webhook
      // signing secrets, sealed wallet secrets): no cache, shared or private, may keep any of them.
      // In the same function, not a layer of their own (each layer costs every request): nosniff,
      // and HSTS when TLS ended at a trusted proxy in front (http/tlsHeaders.ts says why).
      (req, res, next) => {
        res.setHeader('Cache-Control', 'no-store');
        res.setHeader('X-Content-Type-Options', 'nosniff');
        if (req.secure) res.setHeader('Strict-Transport-Security', HSTS);
        next();
      },
      databaseGate(common.databaseHealth),
      // Authenticate before reading the body: an unauthenticated caller's bytes are never parsed.
      authenticate(db, logger),
      jsonBody(config.server.bodyLimitBytes),
      textHygiene,
      displayTextHygiene,
      requirePlan,
      dashboardOnly(),
    ),
  );
  meRouter(v1);
  walletsRouter(common, limiters.writes, v1);
  addressesRouter(common, v1);
  transactionsRouter(common, v1);
  withdrawalsRouter(common, limiters.writes, v1);
  webhooksRouter(common, new DestinationPolicy(config.webhooks.allowCidrs), limiters.writes, v1);
  eventsRouter(common, v1);
  reconciliationRouter(common, v1);
  sweepRulesRouter(common, limiters.writes, v1);
  gasStationRouter(common, v1);
  addressBookRouter(common, limiters.writes, v1);
  app.use('/v1', v1);
  metrics?.mount('/v1', v1);

  app.use(
    methodNotAllowedOrNotFound({
      '/healthz': ['get'],
      '/readyz': ['get'],
      ...(common.metrics ? { '/metrics': ['get'] } : {}),
      '/v1/openapi.json': ['get'],
    }),
  );
  app.use(errorHandler(logger, common.databaseHealth));
  return { app, limiters };
}
