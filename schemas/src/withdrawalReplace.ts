import { AmountOfAsset, Timestamp } from './common';
import type { Operation } from './operations';

/** Speed-up and on-chain cancel of a stuck payout (issue 46), listed after the withdrawal's cancel. */
export const WITHDRAWAL_REPLACE_OPERATIONS: Operation[] = [
  {
    method: 'post',
    path: '/withdrawals/{id}/speed-up',
    operationId: 'speedUpWithdrawal',
    summary:
      'Replace a broadcast, not yet mined transaction with the same one at higher fees (EVM: same nonce, +10 % or the current suggestion, capped by maxFeePerGas; UTXO chains: BIP-125, same inputs and recipients, the higher fee taken from the change, capped by maxFeeRate); the fee cap reserved grows (422 insufficient_funds). Emits withdrawal.broadcast with the new txHash. 409 unless broadcast or when replaces is stale; 422 for a chain without replacement. 20/min per key.',
    action: 'withdrawals:create',
    request: 'WithdrawalReplaceRequest',
    response: 'Withdrawal',
  },
  {
    method: 'post',
    path: '/withdrawals/{id}/cancel-onchain',
    operationId: 'cancelWithdrawalOnchain',
    summary:
      'Replace a broadcast, not yet mined transaction with a zero-value transfer from the source to itself on the same nonce (UTXO chains: its inputs paid back to the wallet change address, less the fee); once it lands the withdrawal is rejected (reason cancelled_onchain), its amount released and the fee paid. If the payout lands first it confirms. 409/422 as speed-up. 20/min per key.',
    action: 'withdrawals:create',
    request: 'WithdrawalReplaceRequest',
    response: 'Withdrawal',
  },
];

/** Body of `POST /withdrawals/{id}/speed-up` and `/cancel-onchain` (issue 46). */
export const WithdrawalReplaceRequest = {
  $id: 'WithdrawalReplaceRequest',
  type: 'object',
  additionalProperties: false,
  properties: {
    maxFeePerGas: {
      type: 'string',
      pattern: '^[0-9]{1,30}$',
      description: 'EVM: the most the replacement may pay per gas, in wei; below +10 % of the transaction it replaces: 422',
    },
    maxFeeRate: {
      type: 'string',
      pattern: '^[0-9]{1,30}$',
      description:
        'UTXO chains: the most the replacement may pay per vbyte, in base units (satoshi); below the replaced fee plus the incremental relay fee: 422',
    },
    replaces: {
      type: 'string',
      minLength: 2,
      maxLength: 200,
      description: 'the transaction hash the caller saw as current (txHash of the last attempt); another one replaced it since: 409',
    },
  },
} as const;

/** Every transaction a withdrawal broadcast on its nonce (`Withdrawal.attempts`). */
export const WithdrawalAttempts = {
  type: 'array',
  description: 'GET /withdrawals/{id} of a sped-up or cancelled-on-chain withdrawal: every transaction on its nonce, oldest first',
  items: {
    type: 'object',
    required: ['txHash', 'kind', 'feeCap', 'at'],
    additionalProperties: false,
    properties: {
      txHash: { type: 'string' },
      kind: { enum: ['original', 'speed_up', 'cancel'] },
      feeCap: { ...AmountOfAsset, description: 'the most this transaction can cost' },
      at: Timestamp,
    },
  },
} as const;
