import type { Request, RequestHandler } from 'express';
import type { Metrics } from '@walletd/core';

/**
 * Counts and times every request by method, route template and status. The template is taken
 * when the router sets `req.route`: at that moment `req.baseUrl` is the mount path (`/v1`), which
 * the router restores to '' once a handler passes an error on, so reading both at 'finish' would
 * lose the prefix. A request no route matched is labelled `unmatched`: a raw path would let any
 * caller mint label values without bound.
 */
export function httpMetrics(metrics: Metrics): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    let template = 'unmatched';
    let route: Request['route'];
    Object.defineProperty(req, 'route', {
      configurable: true,
      enumerable: true,
      get: () => route,
      set: (value: Request['route']) => {
        route = value;
        if (value) template = `${req.baseUrl}${String(value.path)}`;
      },
    });
    res.once('finish', () => {
      const labels = { method: req.method, route: template, status: String(res.statusCode) };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  };
}
