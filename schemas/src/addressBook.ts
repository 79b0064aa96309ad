import { Id, Timestamp } from './common';

/** A named destination of the address book (issue 42 §7). */
export const AddressBookEntry = {
  $id: 'AddressBookEntry',
  type: 'object',
  required: [
    'id',
    'walletId',
    'chain',
    'network',
    'name',
    'address',
    'status',
    'createdAt',
    'usableFrom',
    'createdByMember',
    'createdByKey',
    'shortenRequestedBy',
    'shortenedBy',
  ],
  additionalProperties: false,
  properties: {
    id: Id,
    walletId: { type: ['integer', 'null'], description: 'the wallet the entry is for; null: every wallet of the company on its chain' },
    chain: { type: 'string' },
    network: { type: 'string' },
    name: { type: 'string' },
    address: { type: 'string', description: "the address in the chain's display form (EIP-55 on EVM)" },
    status: { enum: ['cooling_off', 'usable'], description: 'cooling_off until usableFrom, then usable' },
    createdAt: Timestamp,
    usableFrom: {
      type: 'string',
      format: 'date-time',
      description: 'when it can receive: creation plus addressBook.coolingOffMs, or earlier when shortened',
    },
    createdByMember: { type: ['integer', 'null'] },
    createdByKey: { type: ['integer', 'null'] },
    shortenRequestedBy: { type: ['integer', 'null'], description: 'the owner who asked to end the cooling-off early' },
    shortenedBy: { type: ['integer', 'null'], description: 'the second member who approved it' },
  },
} as const;

export const AddressBookEntryList = {
  $id: 'AddressBookEntryList',
  type: 'object',
  required: ['entries'],
  additionalProperties: false,
  properties: { entries: { type: 'array', items: { $ref: 'AddressBookEntry' } } },
} as const;

export const AddressBookEntryCreateRequest = {
  $id: 'AddressBookEntryCreateRequest',
  type: 'object',
  required: ['name', 'chain', 'network', 'address'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 100 },
    chain: { type: 'string', minLength: 1, maxLength: 64 },
    network: { type: 'string', minLength: 1, maxLength: 64 },
    address: { type: 'string', minLength: 1, maxLength: 256 },
    walletId: { type: ['integer', 'null'], minimum: 1, maximum: 2147483647 },
  },
} as const;
