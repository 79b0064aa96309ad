import type { components, WalletdErrorCode } from './api.generated';

/** The error body every walletd error answers with (the OpenAPI document's ErrorBody). */
export type ErrorBody = components['schemas']['ErrorBody'];

/** The fields some codes add to the error body, parsed into their types. */
export interface ErrorDetailsByCode {
  policy_approval_required: { policyIds: string[] };
  policy_denied: { policyIds: string[] };
  policy_approvals_pending: { policyIds: string[] };
  insufficient_funds: { available?: string; reservedBy: string[] };
  rate_limited: { retryAfterSeconds?: number };
}
export type ErrorDetails<C extends string> = C extends keyof ErrorDetailsByCode ? ErrorDetailsByCode[C] : Record<string, unknown>;

/** A code walletd documents, or another one (an older client talking to a newer walletd). */
export type ErrorCode = WalletdErrorCode | (string & {});

const list = (v: unknown): string[] => (typeof v === 'string' && v !== '' ? v.split(',') : []);

function detailsOf(
  code: string,
  body: Partial<ErrorBody> & Record<string, unknown>,
  response: Response | undefined,
): Record<string, unknown> {
  const { statusCode: _s, error: _e, message: _m, code: _c, ...rest } = body;
  if (code.startsWith('policy_')) return { ...rest, policyIds: list(body.policyIds) };
  if (code === 'insufficient_funds') return { ...rest, reservedBy: list(body.reservedBy) };
  if (code === 'rate_limited') {
    const seconds = Number(response?.headers.get('retry-after'));
    return { ...rest, ...(Number.isFinite(seconds) && seconds > 0 ? { retryAfterSeconds: seconds } : {}) };
  }
  return rest;
}

/**
 * A walletd API error: the HTTP status, the stable `code` (docs/reference/errors.md), the message,
 * the code's extra fields parsed (`details`: `policyIds` as a list for the policy refusals,
 * `available` and `reservedBy` for insufficient_funds) and the request id to quote in a report.
 */
export class WalletdApiError<C extends ErrorCode = ErrorCode> extends Error {
  override readonly name = 'WalletdApiError';
  readonly status: number;
  readonly code: C;
  readonly details: ErrorDetails<C>;
  readonly requestId: string | undefined;
  readonly body: unknown;

  constructor(status: number, code: C, message: string, details: ErrorDetails<C>, requestId?: string, body?: unknown) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
    this.requestId = requestId;
    this.body = body;
  }

  /** Narrows to one code: `if (e.is('policy_approval_required')) e.details.policyIds`. */
  is<K extends ErrorCode>(code: K): this is WalletdApiError<K> {
    return (this.code as string) === code;
  }

  /** From what openapi-fetch returned as `error` (the parsed body, or its text) and the response. */
  static from(error: unknown, response: Response | undefined): WalletdApiError {
    const status = response?.status ?? 0;
    const body = (error && typeof error === 'object' ? error : {}) as Partial<ErrorBody> & Record<string, unknown>;
    const code = typeof body.code === 'string' ? body.code : status >= 500 ? 'internal' : 'bad_request';
    const message =
      typeof body.message === 'string'
        ? body.message
        : `walletd answered ${status}${typeof error === 'string' ? `: ${error.slice(0, 200)}` : ''}`;
    return new WalletdApiError(
      status,
      code,
      message,
      detailsOf(code, body, response),
      response?.headers.get('x-request-id') ?? undefined,
      error,
    );
  }
}

/** Whether `e` is a WalletdApiError (with this code, when one is given). */
export function isWalletdApiError<K extends ErrorCode = ErrorCode>(e: unknown, code?: K): e is WalletdApiError<K> {
  return e instanceof WalletdApiError && (code === undefined || e.code === code);
}
