import { statusForCode, type ErrorCode } from './codes';

export interface BaseErrorOptions {
  /** Extra fields rendered into the error body (e.g. policy refusals add `code` and `policyIds`). */
  details?: Record<string, unknown>;
  cause?: unknown;
}

/**
 * Every error the service raises on purpose. `message` must be safe to show to a caller:
 * never a secret, a stack, or an internal identifier the caller cannot see.
 */
export class BaseError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options: BaseErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'BaseError';
    this.code = code;
    this.status = statusForCode(code);
    this.details = options.details;
  }
}

export const isBaseError = (e: unknown): e is BaseError => e instanceof BaseError;
