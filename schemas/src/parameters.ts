/**
 * Path and query parameters of the API, as OpenAPI parameter objects. The routes check the same
 * bounds by hand (query strings arrive as text); these say what a client may send.
 */
export interface Parameter {
  name: string;
  in: 'path' | 'query';
  required?: boolean;
  description: string;
  schema: Record<string, unknown>;
}

const int32Id = { type: 'integer', minimum: 1, maximum: 2147483647 } as const;
/** 64-bit row ids (deliveries, transfers), within JavaScript's safe integers. */
const bigId = { type: 'integer', minimum: 1, maximum: 9007199254740991 } as const;

/** Every `{name}` in a path template, described once. */
export const PATH_PARAMETERS: Record<string, Parameter> = {
  id: { name: 'id', in: 'path', required: true, description: 'the resource id', schema: int32Id },
  deliveryId: { name: 'deliveryId', in: 'path', required: true, description: 'the delivery id', schema: bigId },
  ruleId: { name: 'ruleId', in: 'path', required: true, description: 'the sweep rule id', schema: int32Id },
};

const limit = (max: number, dflt: number): Parameter => ({
  name: 'limit',
  in: 'query',
  description: `page size, 1 to ${max}`,
  schema: { type: 'integer', minimum: 1, maximum: max, default: dflt },
});

export const WITHDRAWAL_STATUSES = ['prepared', 'signed', 'broadcast', 'confirmed', 'rejected', 'cancelled'] as const;
export const REQUEST_STATUSES = ['pending', 'approved', 'rejected', 'expired'] as const;

/** Query parameters by operation id. */
export const QUERY_PARAMETERS: Record<string, Parameter[]> = {
  listDeliveries: [limit(100, 50)],
  listEvents: [
    {
      name: 'after',
      in: 'query',
      description: 'the `next` cursor of the previous page; "0" (the default) starts from the oldest event',
      schema: { type: 'string', pattern: '^(0|(0|[1-9][0-9]{0,19})\\.(0|[1-9][0-9]{0,14}))$', default: '0' },
    },
    limit(1000, 100),
    {
      name: 'types',
      in: 'query',
      description:
        "`*` (the spec's six) or a comma-separated list of event types and `*`; the opt-in types (reconciliation.drift, reconciliation.cleared) are listed only when named",
      schema: { type: 'string', pattern: '^(\\*|[a-z]+\\.[a-z]+)(,(\\*|[a-z]+\\.[a-z]+))*$', default: '*' },
    },
  ],
  getBalances: [
    {
      name: 'onchain',
      in: 'query',
      description: "true: also read each asset's balance from the chain's node (slower)",
      schema: { type: 'boolean', default: false },
    },
  ],
  listTransactions: [
    { name: 'search', in: 'query', description: 'an on-chain transaction hash', schema: { type: 'string', maxLength: 200 } },
    { name: 'walletId', in: 'query', description: 'only this wallet', schema: int32Id },
    { name: 'after', in: 'query', description: 'the `next` id of the previous page', schema: bigId },
    limit(200, 50),
  ],
  listWithdrawals: [
    { name: 'status', in: 'query', description: 'only withdrawals in this state', schema: { enum: WITHDRAWAL_STATUSES } },
    { name: 'after', in: 'query', description: 'the `next` id of the previous page', schema: int32Id },
    limit(100, 50),
  ],
  listReconciliationDrifts: [limit(500, 200)],
  listWithdrawalRequests: [{ name: 'status', in: 'query', description: 'only requests in this state', schema: { enum: REQUEST_STATUSES } }],
};

/** The `{name}`s of a path template, in order. */
export const pathParameterNames = (path: string): string[] => [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
