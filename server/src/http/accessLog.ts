import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { type Logger, unredactedSibling } from '@walletd/core';
import { redactPath } from './tokenPaths';

declare module 'node:http' {
  interface IncomingMessage {
    /** The request id: the caller's `x-request-id` when well formed, else a new UUID; echoed back. */
    id?: string;
  }
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
const PROBES: ReadonlySet<string> = new Set(['/healthz', '/readyz']);

/**
 * One access log line per request, written when the response is done: the request id, method,
 * path without the query (a token-bearing route's token redacted: tokenPaths.ts), client address, status and duration — nothing else, because headers
 * carry keys and bodies carry addresses and amounts. 5xx lines are `error`, the rest `info`, except
 * the probes' (`/healthz`, `/readyz`): their 503 is an answer ("not ready yet", polled by load
 * balancers through every start and catch-up), not a failure, and would page whoever alerts on
 * errors; the readiness reason is logged by the indexer itself. A request whose connection closed
 * before the response was sent logs `request aborted`.
 *
 * Why not pino-http: it builds a child logger and runs its serializers for every request, which
 * the API bench measured at about a tenth of walletd's CPU per authenticated read (bench/README.md,
 * `api`); this writes the same fields with one call.
 */
export function accessLog(base: Logger): RequestHandler {
  // Every field of the line is chosen here and none is a secret: the redaction pass (half the
  // line's cost) is skipped. The line goes to the same destination: asynchronous and buffered, flushed
  // within 200 ms, on 'exit' and on fatal (core's bufferedDestination).
  const logger = unredactedSibling(base);
  return (req, res, next) => {
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    req.id = id;
    res.setHeader('x-request-id', id);
    if (!logger.isLevelEnabled('info')) {
      next();
      return;
    }
    const started = performance.now();
    res.once('close', () => {
      const query = req.originalUrl.indexOf('?');
      // A one-time link's token is in its path: the line names the route, never the token.
      const url = redactPath(query < 0 ? req.originalUrl : req.originalUrl.slice(0, query));
      const entry = {
        reqId: id,
        req: { method: req.method, url, ip: req.socket.remoteAddress },
        res: { statusCode: res.statusCode },
        responseTime: Math.round(performance.now() - started),
      };
      if (!res.writableFinished) logger.info(entry, 'request aborted');
      else if (res.statusCode >= 500 && !PROBES.has(url)) logger.error(entry, 'request completed');
      else logger.info(entry, 'request completed');
    });
    next();
  };
}
