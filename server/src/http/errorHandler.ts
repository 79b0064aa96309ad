import type { ErrorRequestHandler, Response } from 'express';
import {
  BaseError,
  NODE_UNAVAILABLE_MESSAGE,
  NodeUnavailableError,
  isPublicError,
  isDatabaseUnavailable,
  isDiskFull,
  reasonPhrase,
  type Logger,
} from '@walletd/core';
import type { DatabaseHealth } from '../platform/health/databaseHealth';

export interface ErrorBody {
  statusCode: number;
  error: string;
  message: string;
  code?: string;
  policyIds?: string;
}

export function sendError(res: Response, status: number, message: string, extra: Record<string, unknown> = {}): void {
  const body: ErrorBody = { statusCode: status, error: reasonPhrase(status), message, ...extra };
  res.status(status).json(body);
}

/** body-parser reports its failures as errors with a `type`; they are the caller's mistakes. */
function fromBodyParser(err: { type?: string; status?: number; limit?: number }): BaseError | null {
  switch (err.type) {
    case 'entity.parse.failed':
      return new BaseError('malformed_json', 'Request body is not valid JSON');
    case 'entity.too.large':
      return new BaseError('payload_too_large', `Request body exceeds the limit of ${err.limit ?? 'the configured'} bytes`);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new BaseError('unsupported_media_type', 'Request body must be UTF-8 encoded JSON');
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return new BaseError('bad_request', 'Request body could not be read');
    default:
      return null;
  }
}

/** The router's own 4xx (e.g. a path parameter with broken percent-encoding) is the caller's mistake. */
function fromRouter(err: unknown): BaseError | null {
  if (err instanceof URIError) return new BaseError('bad_request', 'Malformed percent-encoding in the request path');
  const status = (err as { status?: unknown })?.status;
  if (typeof status === 'number' && status >= 400 && status < 500) return new BaseError('bad_request', 'Malformed request');
  return null;
}

/** Seconds a client waits before retrying while the database is unreachable (spec 7: 5xx, retry with backoff). */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/** A database that cannot be reached is a temporary condition, not a bug: 503 with Retry-After. */
function fromDatabase(err: unknown, health: DatabaseHealth | undefined): BaseError | null {
  // A full disk refuses writes until the operator frees space (the log and /readyz name the path;
  // a caller is told no more than that): the caller's request was fine, so 503, not 500.
  if (isDiskFull(err)) return new BaseError('unavailable', "The database's disk is full; retry later", { cause: err });
  if (!isDatabaseUnavailable(err)) return null;
  // A hung database shows as the pool's or the client's deadline ("Timeout acquiring a connection"):
  // the watch knows the cause, and its log line said it once.
  const silent = health?.unresponsive();
  if (silent) return new BaseError('unavailable', `${silent}; retry later`, { cause: err, details: { reason: 'database_unresponsive' } });
  return new BaseError('unavailable', 'The database is unreachable; retry later', { cause: err });
}

/** The one place that renders errors: the spec's body, plus a stable `code`. Never a stack. */
export function errorHandler(logger: Logger, health?: DatabaseHealth): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const known = isPublicError(err) ? err : (fromBodyParser(err ?? {}) ?? fromDatabase(err, health) ?? fromRouter(err));
    if (res.headersSent) {
      req.socket.destroy();
      return;
    }
    if (known) {
      // RFC 9110 11.6.1: a 401 names the scheme that would be accepted.
      if (known.status === 401) res.setHeader('WWW-Authenticate', 'Bearer');
      const saidOnce = known.details?.reason === 'database_unresponsive';
      if (known.status >= 500 && !saidOnce) logger.error({ err: known, reqId: req.id }, 'request failed');
      if (known.code === 'unavailable') res.setHeader('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
      // A node failure that did not come through a service naming its chain may quote the node's
      // address (`connect ECONNREFUSED 10.0.0.5:8545`): the log above has it, the caller gets none.
      const message = known.code === 'node_error' && !(known instanceof NodeUnavailableError) ? NODE_UNAVAILABLE_MESSAGE : known.message;
      // A wait a service names travels as the standard header, never as a field of the body's shape.
      const { retryAfterSeconds, ...details } = known.details ?? {};
      if (typeof retryAfterSeconds === 'number') res.setHeader('Retry-After', String(retryAfterSeconds));
      sendError(res, known.status, message, { code: known.code, ...details });
      return;
    }
    logger.error({ err, reqId: req.id }, 'unhandled error');
    sendError(res, 500, 'Internal server error; the request id is in the x-request-id header', { code: 'internal' });
  };
}
