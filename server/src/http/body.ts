import type { RequestHandler } from 'express';
import express from 'express';
import { BaseError } from '@walletd/core';
import { requestError, validator, type SchemaId } from '@walletd/schemas';
import { jsonShapeProblem } from './jsonShape';

const hasBody = (req: Parameters<RequestHandler>[0]) =>
  req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

/** The body's text in its declared charset (body-parser has already refused one it cannot decode). */
function decode(buf: Buffer, encoding: string): string | null {
  if (encoding === 'utf-8' || encoding === 'utf8') return buf.toString('utf8');
  try {
    return new TextDecoder(encoding).decode(buf);
  } catch {
    return null;
  }
}

/**
 * JSON bodies only: a body of another type is refused (415) rather than silently ignored. One
 * middleware: a request without a body (every GET) passes straight on, without body-parser.
 * The raw text is checked for what JSON.parse accepts silently (duplicate keys, unbounded
 * nesting: `jsonShapeProblem`); a syntax error still wins, as `malformed_json`.
 */
export function jsonBody(limitBytes: number): RequestHandler {
  const problems = new WeakMap<object, BaseError>();
  const parse = express.json({
    limit: limitBytes,
    strict: true,
    type: 'application/json',
    verify: (req, _res, buf, encoding) => {
      const text = decode(buf, encoding);
      const problem =
        text === null ? new BaseError('unsupported_media_type', 'Request body must be UTF-8 encoded JSON') : jsonShapeProblem(text);
      if (problem) problems.set(req, problem);
    },
  });
  return (req, res, next) => {
    if (!hasBody(req)) {
      next();
      return;
    }
    if (!req.is('application/json')) {
      next(new BaseError('unsupported_media_type', 'Content-Type must be application/json'));
      return;
    }
    parse(req, res, (err?: unknown) => {
      next(err ?? problems.get(req));
    });
  };
}

function invalid(errors: Parameters<typeof requestError>[0]): BaseError {
  const { code, message } = requestError(errors);
  return new BaseError(code, message);
}

/** Validates a body imperatively (after authorization and loading the resource); returns it. */
export function checkBody<T = Record<string, unknown>>(id: SchemaId, raw: unknown): T {
  const body = raw ?? {};
  if (typeof body !== 'object' || Array.isArray(body)) throw new BaseError('validation_failed', 'Request body must be a JSON object');
  const validate = validator(id);
  if (!validate(body)) throw invalid(validate.errors);
  return body as T;
}

/** Validates the body against a schema of @walletd/schemas; a missing body counts as {}. */
export function validateBody(id: SchemaId): RequestHandler {
  const validate = validator(id);
  return (req, _res, next) => {
    const body = req.body ?? {};
    if (typeof body !== 'object' || Array.isArray(body)) {
      next(new BaseError('validation_failed', 'Request body must be a JSON object'));
      return;
    }
    if (!validate(body)) {
      next(invalid(validate.errors));
      return;
    }
    req.body = body;
    next();
  };
}
