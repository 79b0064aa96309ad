import { DecimalString, Id, Timestamp } from './common';

/** README "Sweeps": a wallet's rule moving each deposit address's funds above a threshold to one destination. */

const trigger = {
  enum: ['schedule', 'deposit'],
  description: 'schedule: every intervalSeconds; deposit: at the next runner tick after a deposit to an address is confirmed',
} as const;
const intervalSeconds = {
  type: 'integer',
  minimum: 60,
  maximum: 2_592_000,
  description: 'with trigger schedule: the run window in seconds (60 s to 30 days); absent with trigger deposit',
} as const;
const destination = {
  type: 'string',
  minLength: 1,
  maxLength: 200,
  description: 'where the funds go: an address of the same wallet (its treasury address) or an external one the destination policies allow',
} as const;
const threshold = {
  ...DecimalString,
  description: 'an address is swept once its available balance reaches this (display units, > 0)',
} as const;
const minLeft = { ...DecimalString, description: 'left on each swept address (display units); "0" by default' } as const;

export const SweepRule = {
  $id: 'SweepRule',
  type: 'object',
  required: [
    'id',
    'walletId',
    'asset',
    'destination',
    'threshold',
    'minLeft',
    'trigger',
    'intervalSeconds',
    'enabled',
    'lastRunAt',
    'lastError',
    'createdAt',
    'updatedAt',
  ],
  additionalProperties: false,
  properties: {
    id: Id,
    walletId: Id,
    asset: { $ref: 'Asset' },
    destination: { type: 'string' },
    threshold: DecimalString,
    minLeft: DecimalString,
    trigger,
    intervalSeconds: { type: ['integer', 'null'] },
    enabled: { type: 'boolean' },
    lastRunAt: { type: ['string', 'null'], format: 'date-time', description: 'when the runner last went over this rule' },
    lastError: {
      type: ['string', 'null'],
      description: 'why the last run could not sweep an address (the address named); null when every one went',
    },
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
} as const;

export const SweepRuleList = {
  $id: 'SweepRuleList',
  type: 'object',
  required: ['rules'],
  additionalProperties: false,
  properties: { rules: { type: 'array', items: { $ref: 'SweepRule' } } },
} as const;

export const SweepRuleCreateRequest = {
  $id: 'SweepRuleCreateRequest',
  type: 'object',
  required: ['asset', 'destination', 'threshold', 'trigger'],
  additionalProperties: false,
  properties: {
    asset: { type: 'string', minLength: 1, maxLength: 200, description: 'asset key or symbol, e.g. "ETH"' },
    destination,
    threshold,
    minLeft,
    trigger,
    intervalSeconds,
    enabled: { type: 'boolean' },
  },
} as const;

export const SweepRuleUpdateRequest = {
  $id: 'SweepRuleUpdateRequest',
  type: 'object',
  minProperties: 1,
  additionalProperties: false,
  properties: { destination, threshold, minLeft, trigger, intervalSeconds, enabled: { type: 'boolean' } },
} as const;
