import type { SchemaId } from './registry';
import { ADDRESS_BOOK_OPERATIONS } from './addressBookOperations';
import { TREASURY_OPERATIONS } from './treasuryOperations';
import { WITHDRAWAL_REPLACE_OPERATIONS } from './withdrawalReplace';

/** One row per operation: the single source for the OpenAPI document. */
export interface Operation {
  method: 'get' | 'post' | 'patch' | 'delete';
  path: string;
  /** Unique; also the key of the operation's query parameters in QUERY_PARAMETERS. */
  operationId: string;
  summary: string;
  action?: string;
  request?: SchemaId;
  response?: SchemaId;
  status?: number;
}

export const OPERATIONS: Operation[] = [
  { method: 'get', path: '/me', operationId: 'getMe', summary: 'Describe the calling API key and its company', response: 'MeResponse' },
  {
    method: 'get',
    path: '/wallets',
    operationId: 'listWallets',
    summary: 'List the wallets the key can see',
    action: 'wallets:read',
    response: 'WalletList',
  },
  {
    method: 'post',
    path: '/wallets',
    operationId: 'createWallet',
    summary: 'Create a wallet (server-generated HD secret)',
    action: 'wallets:create',
    request: 'WalletCreateRequest',
    response: 'Wallet',
    status: 201,
  },
  { method: 'get', path: '/wallets/{id}', operationId: 'getWallet', summary: 'Read a wallet', action: 'wallets:read', response: 'Wallet' },
  {
    method: 'patch',
    path: '/wallets/{id}',
    operationId: 'updateWallet',
    summary: 'Rename a wallet',
    action: 'wallets:update',
    request: 'WalletUpdateRequest',
    response: 'Wallet',
  },
  {
    method: 'delete',
    path: '/wallets/{id}',
    operationId: 'deleteWallet',
    summary: 'Delete (archive) a wallet',
    action: 'wallets:delete',
    status: 204,
  },
  {
    method: 'get',
    path: '/wallets/{id}/secret',
    operationId: 'getWalletSecret',
    summary: "Read the wallet secret sealed to the company's encryption key (audited)",
    action: 'withdrawals:create or wallets:generate_address',
    response: 'WalletSecretResponse',
  },
  {
    method: 'post',
    path: '/webhooks',
    operationId: 'createWebhook',
    summary: 'Register a webhook; the signing secret is returned once',
    action: 'webhooks:manage',
    request: 'WebhookCreateRequest',
    response: 'WebhookWithSecret',
    status: 201,
  },
  {
    method: 'get',
    path: '/webhooks',
    operationId: 'listWebhooks',
    summary: 'List the webhooks the key can see (all their wallets in scope)',
    action: 'webhooks:manage',
    response: 'WebhookList',
  },
  {
    method: 'get',
    path: '/webhooks/{id}',
    operationId: 'getWebhook',
    summary: 'Read a webhook',
    action: 'webhooks:manage',
    response: 'Webhook',
  },
  {
    method: 'patch',
    path: '/webhooks/{id}',
    operationId: 'updateWebhook',
    summary: 'Change config (replaced whole), events, walletIds or enabled',
    action: 'webhooks:manage',
    request: 'WebhookUpdateRequest',
    response: 'Webhook',
  },
  {
    method: 'delete',
    path: '/webhooks/{id}',
    operationId: 'deleteWebhook',
    summary: 'Delete a webhook; waiting deliveries end failed',
    action: 'webhooks:manage',
    status: 204,
  },
  {
    method: 'post',
    path: '/webhooks/{id}/rotate-secret',
    operationId: 'rotateWebhookSecret',
    summary: 'Rotate the signing secret; new deliveries are signed with it at once',
    action: 'webhooks:manage',
    request: 'RotateSecretRequest',
    response: 'RotateSecretResponse',
  },
  {
    method: 'get',
    path: '/webhooks/{id}/deliveries',
    operationId: 'listDeliveries',
    summary: 'Delivery log, newest first (query limit 1-100, default 50)',
    action: 'webhooks:manage',
    response: 'DeliveryList',
  },
  {
    method: 'get',
    path: '/webhooks/{id}/deliveries/{deliveryId}',
    operationId: 'getDelivery',
    summary: 'One delivery with its payload and response body',
    action: 'webhooks:manage',
    response: 'DeliveryDetail',
  },
  {
    method: 'post',
    path: '/webhooks/{id}/deliveries/{deliveryId}/redeliver',
    operationId: 'redeliverDelivery',
    summary:
      'Send the same event again (same id and bytes): 202 with the new delivery; 200 with the one already pending for this event, if any. 20/min per key.',
    action: 'webhooks:manage',
    status: 202,
  },
  {
    method: 'post',
    path: '/webhooks/{id}/replay',
    operationId: 'replayEvents',
    summary:
      'Re-queue the matching events of a time window (events with a delivery pending are skipped), at most 10,000 per call in event order; while hasMore, call again with after: next to queue the rest. 20/min per key.',
    action: 'webhooks:manage',
    request: 'ReplayRequest',
    response: 'ReplayResponse',
    status: 202,
  },
  {
    method: 'get',
    path: '/events',
    operationId: 'listEvents',
    summary:
      "The ordered event feed (query after, limit 1-1000, default 100, types: `*` (the default, the spec's six) or a comma-separated list; the opt-in reconciliation.* types only when named; 400 validation_failed for an unknown type)",
    action: 'events:read',
    response: 'EventFeed',
  },
  {
    method: 'post',
    path: '/wallets/{id}/addresses',
    operationId: 'createAddress',
    summary:
      "Generate the wallet's next deposit address: only on a chain/network the service follows (a chains[] entry, or the devnet), else 409 chain_not_followed saying how to follow it; 422 when no loaded plugin serves the chain, naming the package to add to plugins. Nothing is written on either.",
    action: 'wallets:generate_address',
    request: 'AddressCreateRequest',
    response: 'Address',
    status: 201,
  },
  {
    method: 'get',
    path: '/wallets/{id}/addresses',
    operationId: 'listAddresses',
    summary: "List the wallet's deposit addresses",
    action: 'wallets:read',
    response: 'AddressList',
  },
  {
    method: 'get',
    path: '/wallets/{id}/balances',
    operationId: 'getBalances',
    summary: 'Confirmed, pending, reserved (held by in-flight withdrawals) and available balance per asset',
    action: 'wallets:read',
    response: 'Balances',
  },
  {
    method: 'get',
    path: '/transactions',
    operationId: 'listTransactions',
    summary:
      "Deposits (direction incoming) and withdrawals from signing on (direction outgoing) of the key's wallets, newest first; archived wallets hidden (query search = a transaction hash, walletId, limit 1-200, after = the previous page's next)",
    action: 'transactions:read',
    response: 'TransactionList',
  },
  {
    method: 'post',
    path: '/wallets/{id}/withdrawals',
    operationId: 'prepareWithdrawal',
    summary:
      'Prepare a withdrawal: intent → spending policies → unsigned transaction (fee cap, nonce/inputs, funds checked) that reserves its amount and fee cap until it settles. 201, or 200 with Idempotent-Replayed for a repeated idempotencyKey; 403 policy_*; 409 idempotency_conflict; 422 insufficient_funds (with available and reservedBy) / unknown_asset. 20/min per key.',
    action: 'withdrawals:create',
    request: 'WithdrawalPrepareRequest',
    response: 'Withdrawal',
    status: 201,
  },
  {
    method: 'get',
    path: '/wallets/{id}/withdrawals',
    operationId: 'listWithdrawals',
    summary: "The wallet's withdrawals, newest first (query status, limit 1-100, after)",
    action: 'withdrawals:read',
    response: 'WithdrawalList',
  },
  {
    method: 'get',
    path: '/withdrawals/{id}',
    operationId: 'getWithdrawal',
    summary: 'The current state of a withdrawal and its history',
    action: 'withdrawals:read',
    response: 'Withdrawal',
  },
  {
    method: 'post',
    path: '/withdrawals/{id}/sign',
    operationId: 'signWithdrawal',
    summary:
      'Sign with the wallet secret (fresh nonce and fees, same intent); the signed transaction is stored before any send. 20/min per key.',
    action: 'withdrawals:create',
    request: 'WithdrawalSignRequest',
    response: 'Withdrawal',
  },
  {
    method: 'post',
    path: '/withdrawals/{id}/broadcast',
    operationId: 'broadcastWithdrawal',
    summary:
      'Publish it, at most once (signs first when needed; or checks a signedTransaction from elsewhere pays exactly the intent, 422 otherwise). Emits withdrawal.broadcast. 20/min per key.',
    action: 'withdrawals:create',
    request: 'WithdrawalBroadcastRequest',
    response: 'Withdrawal',
  },
  {
    method: 'post',
    path: '/withdrawals/{id}/cancel',
    operationId: 'cancelWithdrawal',
    summary: 'Cancel a prepared (not yet signed) withdrawal',
    action: 'withdrawals:create',
    response: 'Withdrawal',
  },
  ...WITHDRAWAL_REPLACE_OPERATIONS,
  {
    method: 'post',
    path: '/withdrawal-requests',
    operationId: 'createWithdrawalRequest',
    summary:
      "Propose a withdrawal for people to approve in the members' console; at quorum it becomes a prepared withdrawal. 20/min per key.",
    action: 'withdrawal_requests:create',
    request: 'WithdrawalRequestCreateRequest',
    response: 'WithdrawalRequest',
    status: 201,
  },
  {
    method: 'get',
    path: '/withdrawal-requests',
    operationId: 'listWithdrawalRequests',
    summary: "Requests of the key's wallets, newest first (query status)",
    action: 'withdrawals:read',
    response: 'WithdrawalRequestList',
  },
  {
    method: 'get',
    path: '/withdrawal-requests/{id}',
    operationId: 'getWithdrawalRequest',
    summary: 'A request with its votes and, once approved, its withdrawal id',
    action: 'withdrawals:read or withdrawal_requests:create',
    response: 'WithdrawalRequest',
  },
  ...TREASURY_OPERATIONS,
  ...ADDRESS_BOOK_OPERATIONS,
];
