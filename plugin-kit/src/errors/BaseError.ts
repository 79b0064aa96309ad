import { RETRIABLE_CODES, isPublicCode, statusForCode, type ErrorCode } from './codes';

export interface BaseErrorOptions {
  /** Extra fields rendered into the error body (e.g. policy refusals add `code` and `policyIds`). */
  details?: Record<string, unknown>;
  cause?: unknown;
  /** Whether the same call may succeed if made again; by default, whether its code is in `RETRIABLE_CODES`. */
  retriable?: boolean;
}

/**
 * Every error walletd raises: the one root of its errors (config, plugin registration, node
 * transports, invariants all extend it). `message` must be safe to show to a caller: never a
 * secret, a stack, or an internal identifier the caller cannot see. Only errors with a public code
 * reach an HTTP caller as they are (`isPublicError`); `retriable` is for code that decides whether
 * to try again, and is not part of the HTTP answer (there, 429/502/503 and `Retry-After` say it).
 */
export class BaseError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;
  readonly retriable: boolean;

  constructor(code: ErrorCode, message: string, options: BaseErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'BaseError';
    this.code = code;
    this.status = statusForCode(code);
    this.details = options.details;
    this.retriable = options.retriable ?? RETRIABLE_CODES.has(code);
  }
}

export const isBaseError = (e: unknown): e is BaseError => e instanceof BaseError;

/**
 * A BaseError an HTTP caller may see as it is: its code is in the public table. Code that lets
 * typed errors through and turns the rest into something else (a 502, a 422 "cannot be read", a
 * logged 500) asks this, so an internal code travels as an unexpected error did before it had one.
 */
export const isPublicError = (e: unknown): e is BaseError => isBaseError(e) && isPublicCode(e.code);
