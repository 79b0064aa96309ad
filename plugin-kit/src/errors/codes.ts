/**
 * The one table from stable error codes to HTTP statuses. Codes are part of the public
 * contract (documented in docs/reference/errors.md, generated from this table); add, never rename.
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
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const statusForCode = (code: ErrorCode): number => ERROR_STATUS[code];

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
