import { Timestamp } from './common';

export const MeResponse = {
  $id: 'MeResponse',
  type: 'object',
  required: ['company', 'key'],
  additionalProperties: false,
  properties: {
    company: {
      type: 'object',
      required: ['id', 'name', 'plan'],
      additionalProperties: false,
      properties: {
        id: { type: 'integer' },
        name: { type: 'string' },
        plan: { enum: ['none', 'free', 'paid'] },
      },
    },
    key: {
      type: 'object',
      required: ['id', 'hint', 'actions', 'effectiveActions', 'walletIds', 'allowIps', 'expiresAt', 'createdAt', 'createdBy'],
      additionalProperties: false,
      properties: {
        id: { type: 'integer' },
        hint: { type: 'string', description: 'The first characters of the key, to tell keys apart; never the secret' },
        name: { type: ['string', 'null'] },
        actions: { type: 'array', items: { type: 'string' } },
        effectiveActions: {
          type: 'array',
          items: { type: 'string' },
          description: "Granted actions the creator's current role still allows",
        },
        walletIds: { oneOf: [{ const: '*' }, { type: 'array', items: { type: 'integer' } }] },
        allowIps: { type: ['array', 'null'], items: { type: 'string' } },
        expiresAt: { oneOf: [Timestamp, { type: 'null' }] },
        createdAt: Timestamp,
        createdBy: {
          oneOf: [
            { type: 'null' },
            {
              type: 'object',
              required: ['memberId', 'role'],
              additionalProperties: false,
              properties: { memberId: { type: 'integer' }, role: { type: ['string', 'null'] } },
            },
          ],
        },
      },
    },
  },
} as const;
