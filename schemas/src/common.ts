/** Shared building blocks. `$id`s are stable: the OpenAPI document references them. */
export const ErrorBody = {
  $id: 'ErrorBody',
  type: 'object',
  required: ['statusCode', 'error', 'message'],
  additionalProperties: false,
  properties: {
    statusCode: { type: 'integer' },
    error: { type: 'string', description: 'HTTP reason phrase' },
    message: { type: 'string' },
    code: { type: 'string', description: 'Stable machine-readable code (policy refusals and selected errors)' },
    policyIds: { type: 'string', description: 'Comma-separated ids of the policies that refused (policy refusals only)' },
    available: { type: 'string', description: 'insufficient_funds: what the source (or the wallet, where funds are pooled) has available' },
    reservedBy: { type: 'string', description: 'insufficient_funds: comma-separated ids of the in-flight withdrawals holding the rest' },
    reason: { type: 'string', description: '/readyz: why the database cannot serve (database_down, disk_full)' },
  },
} as const;

/**
 * A chain's name. The chains are the ones the loaded plugins declare (issue 31): no list here.
 * The OpenAPI document the server serves lists the loaded chains where a request names one
 * (`buildOpenApi(version, chains)`); a chain no loaded plugin serves is answered 422
 * `chain_not_supported`, naming the loaded ones.
 */
export const ChainName = {
  type: 'string',
  pattern: '^[a-z][a-z0-9-]{0,31}$',
  description: 'the name of a chain a loaded plugin serves',
} as const;

export const Timestamp = { type: 'string', format: 'date-time' } as const;
export const Id = { type: 'integer', minimum: 1 } as const;
export const DecimalString = {
  type: 'string',
  pattern: '^(0|[1-9][0-9]*)(\\.[0-9]+)?$',
  description: 'Exact decimal in display units, never a JSON number',
} as const;

/**
 * A decimal that may be negative (reconciliation's drifts: the node holds less than walletd
 * knows). Never "-0": zero is written "0".
 */
export const SignedDecimalString = {
  type: 'string',
  pattern: '^(?!-0(\\.0+)?$)-?(0|[1-9][0-9]*)(\\.[0-9]+)?$',
  description: 'Exact signed decimal in display units, never a JSON number',
} as const;

/** One recipient of a withdrawal (spec 2.7 `outputs`). */
export const RecipientAmount = {
  type: 'object',
  required: ['toAddress', 'amount'],
  additionalProperties: false,
  properties: {
    toAddress: { type: 'string' },
    amount: DecimalString,
    memo: { type: 'string', description: 'withdrawals: the memo the transaction carries for this recipient, when it has one' },
    destinationTag: { type: 'integer', minimum: 0, maximum: 4294967295, description: 'withdrawals: its destination tag, when it has one' },
  },
} as const;

/** An amount with its asset (fees, spec 2.7). */
export const AmountOfAsset = {
  type: 'object',
  required: ['amount', 'asset'],
  additionalProperties: false,
  properties: { amount: DecimalString, asset: { $ref: 'Asset' } },
} as const;
