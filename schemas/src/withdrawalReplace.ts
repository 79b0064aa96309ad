import { AmountOfAsset, Timestamp } from './common';

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
    replaces: {
      type: 'string',
      minLength: 2,
      maxLength: 200,
      description: 'the transaction hash the caller saw as current (txHash of the last attempt); another one replaced it since: 409',
    },
  },
} as const;

/** One transaction a withdrawal broadcast on its nonce (`Withdrawal.attempts`). */
export const WithdrawalAttempt = {
  type: 'object',
  required: ['txHash', 'kind', 'feeCap', 'at'],
  additionalProperties: false,
  properties: {
    txHash: { type: 'string' },
    kind: { enum: ['original', 'speed_up', 'cancel'] },
    feeCap: { ...AmountOfAsset, description: 'the most this transaction can cost' },
    at: Timestamp,
  },
} as const;
