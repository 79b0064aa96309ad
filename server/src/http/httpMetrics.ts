import type { RequestHandler, Router } from 'express';
import { trace } from '@opentelemetry/api';
import type { Metrics } from '@walletd/core';

export interface HttpMetrics extends RequestHandler {
  /** Names the routes of `router`, mounted at `prefix`, by their full template (`/v1/wallets/:id`). */
  mount(prefix: string, router: Router): void;
}

/**
 * Counts and times every request by method, route template and status. The template comes from
 * the route the router matched (`req.route`, which it keeps set), read at 'finish': `req.baseUrl`
 * is no help then (the router restores it to '' once a handler passes an error on), so the routes
 * of a mounted router are named with their prefix once, at start-up (`mount`). A request no route
 * matched is labelled `unmatched`: a raw path would let any caller mint label values without bound.
 *
 * Why not an accessor on `req.route` per request (as before): defining a property with fresh
 * getter and setter closures on every request gave every `req` a map of its own, which turned the
 * property loads of every later layer megamorphic (V8 inline-cache misses in the API bench's
 * `perf` profile, bench/README.md, `api`).
 */
export function httpMetrics(metrics: Metrics): HttpMetrics {
  const templates = new WeakMap<object, string>();
  const middleware = ((req, res, next) => {
    const started = process.hrtime.bigint();
    // Traces on: the http instrumentation's span for this request, named by the same template
    // (`GET /v1/wallets/:id`) when it ends (on 'close', after this 'finish'). Off: undefined.
    const span = trace.getActiveSpan();
    res.once('finish', () => {
      const route = req.route as { path?: unknown } | undefined;
      const template = route ? (templates.get(route) ?? String(route.path)) : 'unmatched';
      const labels = { method: req.method, route: template, status: String(res.statusCode) };
      metrics.httpRequests.inc(labels);
      span?.setAttribute('http.route', template).updateName(`${req.method} ${template}`);
      metrics.httpDuration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  }) as HttpMetrics;
  middleware.mount = (prefix, router) => {
    for (const layer of router.stack as { route?: { path: unknown } }[]) {
      if (layer.route) templates.set(layer.route, `${prefix}${String(layer.route.path)}`);
    }
  };
  return middleware;
}
