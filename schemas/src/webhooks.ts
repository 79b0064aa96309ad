import { Id, Timestamp } from './common';
import { OPT_IN_EVENT_TYPES } from '@walletd/core';
import { EVENT_TYPES } from './events';

const eventsList = {
  type: 'array',
  minItems: 1,
  uniqueItems: true,
  // `*` is the spec's six; the opt-in types (reconciliation.*) are received only when named.
  items: { enum: ['*', ...EVENT_TYPES, ...OPT_IN_EVENT_TYPES] },
} as const;
const walletIds = {
  type: 'array',
  uniqueItems: true,
  maxItems: 1000,
  items: { type: 'integer', minimum: 1, maximum: 2147483647 },
} as const;
const secret = { type: 'string', minLength: 16, maxLength: 256 } as const;
// Per-type shapes are checked after the schema (they depend on `type`); here: an object.
const config = { type: 'object' } as const;

export const WebhookCreateRequest = {
  $id: 'WebhookCreateRequest',
  type: 'object',
  required: ['type', 'config', 'events'],
  additionalProperties: false,
  properties: {
    type: { enum: ['api', 'telegram', 'slack'] },
    config,
    events: eventsList,
    walletIds,
    signingSecret: secret,
    enabled: { type: 'boolean' },
  },
} as const;

export const WebhookUpdateRequest = {
  $id: 'WebhookUpdateRequest',
  type: 'object',
  minProperties: 1,
  additionalProperties: false,
  properties: { config, events: eventsList, walletIds, enabled: { type: 'boolean' } },
} as const;

export const RotateSecretRequest = {
  $id: 'RotateSecretRequest',
  type: 'object',
  additionalProperties: false,
  properties: { signingSecret: secret },
} as const;

export const ReplayRequest = {
  $id: 'ReplayRequest',
  type: 'object',
  required: ['since'],
  additionalProperties: false,
  properties: {
    since: Timestamp,
    until: Timestamp,
    status: { enum: ['pending', 'delivered', 'failed'], description: 'only events whose latest delivery to this webhook has this status' },
    after: {
      type: 'string',
      pattern: '^(0|[1-9][0-9]{0,18})$',
      description: '`next` of the previous replay of the same window: queue the events after the last one it queued',
    },
  },
} as const;

const webhookProps = {
  id: Id,
  type: { enum: ['api', 'telegram', 'slack'] },
  config: { type: 'object', description: 'secret fields (bot tokens, Slack URLs) are masked' },
  events: { type: 'array', items: { type: 'string' } },
  walletIds: { type: 'array', items: { type: 'integer' } },
  enabled: { type: 'boolean' },
  delivery: {
    type: 'object',
    description:
      "the endpoint's circuit breaker: failed attempts in a row, and until when nothing is sent to it (null: not backed off). A 2xx or a PATCH of config closes it",
    required: ['consecutiveFailures', 'backedOffUntil'],
    additionalProperties: false,
    properties: {
      consecutiveFailures: { type: 'integer', minimum: 0 },
      backedOffUntil: { type: ['string', 'null'], format: 'date-time' },
    },
  },
  createdAt: Timestamp,
  updatedAt: Timestamp,
} as const;
const webhookRequired = ['id', 'type', 'config', 'events', 'walletIds', 'enabled', 'delivery', 'createdAt', 'updatedAt'] as const;

export const Webhook = {
  $id: 'Webhook',
  type: 'object',
  required: webhookRequired,
  additionalProperties: false,
  properties: webhookProps,
} as const;

export const WebhookWithSecret = {
  $id: 'WebhookWithSecret',
  type: 'object',
  required: [...webhookRequired, 'signingSecret'],
  additionalProperties: false,
  properties: { ...webhookProps, signingSecret: { type: 'string' } },
} as const;

export const WebhookList = {
  $id: 'WebhookList',
  type: 'object',
  required: ['webhooks'],
  additionalProperties: false,
  properties: { webhooks: { type: 'array', items: { $ref: 'Webhook' } } },
} as const;

export const RotateSecretResponse = {
  $id: 'RotateSecretResponse',
  type: 'object',
  required: ['id', 'signingSecret'],
  additionalProperties: false,
  properties: { id: Id, signingSecret: { type: 'string' } },
} as const;

const deliveryProps = {
  id: Id,
  webhookId: Id,
  eventId: { type: 'string', format: 'uuid' },
  eventType: { enum: [...EVENT_TYPES, ...OPT_IN_EVENT_TYPES] },
  status: { enum: ['pending', 'delivered', 'failed'] },
  attempts: { type: 'integer', minimum: 0 },
  responseCode: { type: ['integer', 'null'] },
  lastError: { type: ['string', 'null'] },
  nextAttemptAt: { ...Timestamp, description: 'present when another try is due' },
  createdAt: Timestamp,
  updatedAt: Timestamp,
} as const;
const deliveryRequired = [
  'id',
  'webhookId',
  'eventId',
  'eventType',
  'status',
  'attempts',
  'responseCode',
  'lastError',
  'createdAt',
  'updatedAt',
] as const;

export const Delivery = {
  $id: 'Delivery',
  type: 'object',
  required: deliveryRequired,
  additionalProperties: false,
  properties: deliveryProps,
} as const;

export const DeliveryList = {
  $id: 'DeliveryList',
  type: 'object',
  required: ['deliveries'],
  additionalProperties: false,
  properties: { deliveries: { type: 'array', items: { $ref: 'Delivery' } } },
} as const;

export const DeliveryDetail = {
  $id: 'DeliveryDetail',
  type: 'object',
  required: ['delivery'],
  additionalProperties: false,
  properties: {
    delivery: {
      type: 'object',
      required: [...deliveryRequired, 'responseBody', 'payload'],
      additionalProperties: false,
      properties: {
        ...deliveryProps,
        responseBody: { type: ['string', 'null'], description: 'first 2 KB, cut on a UTF-8 boundary' },
        payload: { $ref: 'EventEnvelope' },
      },
    },
  },
} as const;

export const ReplayResponse = {
  $id: 'ReplayResponse',
  type: 'object',
  required: ['queued', 'hasMore', 'next'],
  additionalProperties: false,
  properties: {
    queued: { type: 'integer', minimum: 0, maximum: 10000, description: 'deliveries queued by this call (at most 10,000 events per call)' },
    hasMore: { type: 'boolean', description: 'matching events of the window remain: call again with `after: next`' },
    next: {
      type: ['string', 'null'],
      description: 'opaque cursor: pass as `after` with the same since, until and status to queue the rest; null when none remain',
    },
  },
} as const;
