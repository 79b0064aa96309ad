import type { IncomingMessage } from 'node:http';
import { redactPath } from '../../http/tokenPaths';
import { tracingConfigured } from './tracingConfigured';

type Instrumentation = typeof import('@opentelemetry/instrumentation');
type Http = typeof import('@opentelemetry/instrumentation-http');
type Pg = typeof import('@opentelemetry/instrumentation-pg');

/**
 * Imported first by the `walletd` command (cli/main.ts): the http and pg instrumentations patch
 * those modules as they are loaded, so they are registered before express and pg are. Their spans
 * go to the tracer provider `serve` registers later (startTracing.ts). Only when traces are
 * configured: otherwise nothing of the SDK is loaded.
 *
 * Incoming requests only (the API's and the console's): outgoing ones are webhook POSTs, whose URL
 * may hold a secret (a Slack URL, a bot token) and which have spans of their own (deliverySpan.ts),
 * and node calls (undici, not instrumented here). The query string is dropped from the request's
 * attributes, and a token-bearing path (an invitation link) is redacted as the access log does. pg: statements under one of walletd's spans only, their
 * text without the values.
 */
export function instrumentEarly(): void {
  if (!tracingConfigured()) return;
  const { registerInstrumentations } = require('@opentelemetry/instrumentation') as Instrumentation;
  const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http') as Http;
  const { PgInstrumentation } = require('@opentelemetry/instrumentation-pg') as Pg;
  registerInstrumentations({
    instrumentations: [
      new HttpInstrumentation({
        disableOutgoingRequestInstrumentation: true,
        ignoreIncomingRequestHook: (req) => req.url === '/metrics' || req.url === '/healthz' || req.url === '/readyz',
        applyCustomAttributesOnSpan: (span, request) => {
          // originalUrl: by the response's end express has cut a mounted app's prefix off `url`
          // (the console's `/console`), and the redaction matches whole routes.
          const req = request as IncomingMessage & { originalUrl?: string };
          const path = redactPath((req.originalUrl ?? req.url ?? '/').split('?')[0] as string);
          const url = `http://${req.headers.host ?? 'localhost'}${path}`;
          span.setAttributes({ 'http.target': path, 'url.path': path, 'url.query': '', 'http.url': url, 'url.full': url });
        },
      }),
      new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false, ignoreConnectSpans: true }),
    ],
  });
}

instrumentEarly();
