import { BaseError } from './BaseError';

/**
 * A condition that holds unless walletd's own code is wrong (a row that must exist, a layout the
 * code built itself). Named so a reader sees the throw is no expected failure; the API answers it
 * as any unexpected error (500 `internal`, the message only in the log).
 */
export class InvariantError extends BaseError {
  constructor(message: string, options: { cause?: unknown; details?: Record<string, unknown> } = {}) {
    super('internal_invariant', message, { ...options, retriable: false });
    this.name = 'InvariantError';
  }
}

/** Throws an `InvariantError` with `message` unless `condition` holds (and narrows the type after it). */
export function invariant(condition: unknown, message: string | (() => string)): asserts condition {
  if (!condition) throw new InvariantError(typeof message === 'function' ? message() : message);
}
