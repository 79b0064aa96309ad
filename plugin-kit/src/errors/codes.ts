/**
 * The one table from stable error codes to HTTP statuses. Codes are part of the public
 * contract (documented in docs/reference/errors.md, generated from this table); add, never rename.
 * These are the codes an HTTP caller may read; the internal codes below never reach one.
 */
export const ERROR_STATUS = {
  bad_request: 400,
  validation_failed: 400,
  malformed_json: 400,
  invalid_address: 400,
  invalid_amount: 400,
  unauthorized: 401,
  mfa_required: 401,
  plan_required: 402,
  forbidden: 403,
  dashboard_only: 403,
  ip_not_allowed: 403,
  role_insufficient: 403,
  plan_forbidden: 403,
  plan_cap_reached: 403,
  policy_denied: 403,
  policy_approval_required: 403,
  policy_approvals_pending: 403,
  address_cooling_off: 403,
  csrf_failed: 403,
  step_up_required: 403,
  mfa_enrollment_required: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  idempotency_conflict: 409,
  request_expired: 409,
  chain_not_followed: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unprocessable: 422,
  unknown_asset: 422,
  chain_not_supported: 422,
  insufficient_funds: 422,
  rate_limited: 429,
  internal: 500,
  node_error: 502,
  /** A cloud KMS holding a key refused or failed a call (access denied, key disabled or missing): the message names its exception. */
  kms_error: 502,
  unavailable: 503,
} as const;

/** A code an HTTP caller may read: listed in the README's table of codes. */
export type PublicErrorCode = keyof typeof ERROR_STATUS;

/**
 * Codes of failures that are walletd's own, not the caller's: a wrong configuration, a broken
 * invariant, a node answer that makes no sense. They name the failure in logs, the CLI and tests;
 * the API never shows them: an HTTP caller gets the generic 500 `internal` (as for any unexpected
 * error), so these add nothing to the public contract and may be renamed.
 */
export const INTERNAL_ERROR_CODES = [
  /** Cannot happen unless the code is wrong (`invariant`). */
  'internal_invariant',
  /** The configuration (file, environment, master key, database URL) cannot be used. */
  'config_invalid',
  /** A command line's options or arguments. */
  'usage_invalid',
  /** A plugin that cannot be registered or does not serve what was asked of it. */
  'plugin_invalid',
  /** A value handed to a function is malformed (an amount string, an address index, a CIDR). */
  'input_invalid',
  /** Bytes that do not decode (a protobuf, an extrinsic, a message). */
  'encoding_invalid',
  /** A node call that failed in a way worth another attempt (no answer, a reset, a timeout). */
  'node_transient',
  /** A node answer over the byte cap (`chains[].maxResponseBytes`). */
  'node_answer_too_large',
  /** A node answered, but with data that makes no sense (missing, mismatched, unvalidated). */
  'node_answer_invalid',
  /** The host lacks something walletd needs to run (a binary, a system user) or it did not start. */
  'setup_failed',
  /** A local development chain (devnet, regtest, an emulator) refused or failed a request. */
  'devchain_failed',
] as const;

export type InternalErrorCode = (typeof INTERNAL_ERROR_CODES)[number];

export type ErrorCode = PublicErrorCode | InternalErrorCode;

const INTERNAL: ReadonlySet<string> = new Set(INTERNAL_ERROR_CODES);

/** Whether a code is one an HTTP caller may read (the README's table), not an internal one. */
export const isPublicCode = (code: string): code is PublicErrorCode => Object.hasOwn(ERROR_STATUS, code);

/** Internal codes are 500s: the caller sees `internal`, whatever the code says. */
export const statusForCode = (code: ErrorCode): number => (INTERNAL.has(code) ? 500 : ERROR_STATUS[code as PublicErrorCode]);

/**
 * Codes whose failure is worth retrying as it was (as Coinbase Mesh's errors say): the node or the
 * database was away, busy or slow. Bad input, refusals by policy and broken invariants are not: they
 * fail the same again. An error may say otherwise for itself (`BaseErrorOptions.retriable`).
 */
export const RETRIABLE_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'rate_limited',
  'node_error',
  'unavailable',
  'node_transient',
  'node_answer_invalid',
]);

/** HTTP reason phrases for the `error` field of the error body. */
export const REASON_PHRASES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

export const reasonPhrase = (status: number): string => REASON_PHRASES[status] ?? 'Error';
