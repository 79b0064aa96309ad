/**
 * @walletd/client: a typed client for walletd's HTTP API (README.md). Types generated from
 * walletd's OpenAPI document (api.generated.ts), calls in openapi-fetch's style, idempotency keys
 * filled, bounded retries, cursor iterators, errors typed by code, and the webhook verifier.
 */
export type { components, operations, paths } from './api.generated';
export { API_VERSION, CURSOR_OPERATIONS, ERROR_CODES, IDEMPOTENT_OPERATIONS, type WalletdErrorCode } from './api.generated';
export { type ErrorBody, type ErrorCode, type ErrorDetails, type ErrorDetailsByCode, isWalletdApiError, WalletdApiError } from './apiError';
export { createWalletdClient, type WalletdClient, type WalletdClientOptions } from './createWalletdClient';
export { idempotencyKeys } from './idempotencyKeys';
export { ok } from './ok';
export type { CursorPath, ItemOf, Page, PageParams } from './pages';
export { RETRY_STATUSES, type RetryInfo, type RetryOptions, retryAfterMs, retryingFetch } from './retryingFetch';
// The webhook side: verify a delivery's signature and type its event (@walletd/receiver).
export { parseEvent, verifySignature, WalletdEventError } from '@walletd/receiver';
