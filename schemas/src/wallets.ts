import { ChainName, Id, Timestamp } from './common';

export const Wallet = {
  $id: 'Wallet',
  type: 'object',
  required: ['id', 'name', 'chain', 'network', 'createdAt', 'updatedAt'],
  additionalProperties: false,
  properties: {
    id: Id,
    name: { type: 'string' },
    chain: ChainName,
    network: { type: 'string' },
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
} as const;

export const WalletList = {
  $id: 'WalletList',
  type: 'object',
  required: ['wallets'],
  additionalProperties: false,
  properties: { wallets: { type: 'array', items: { $ref: 'Wallet' } } },
} as const;

export const WalletCreateRequest = {
  $id: 'WalletCreateRequest',
  type: 'object',
  required: ['name', 'chain', 'network'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 100 },
    chain: ChainName,
    network: { type: 'string', minLength: 1, maxLength: 32 },
  },
} as const;

export const WalletUpdateRequest = {
  $id: 'WalletUpdateRequest',
  type: 'object',
  minProperties: 1,
  additionalProperties: false,
  properties: { name: { type: 'string', minLength: 1, maxLength: 100 } },
} as const;

export const WalletSecretResponse = {
  $id: 'WalletSecretResponse',
  type: 'object',
  required: ['walletId', 'format', 'sealedSecret'],
  additionalProperties: false,
  properties: {
    walletId: Id,
    format: { const: 'wdseal1', description: 'X25519 + HKDF-SHA256 + AES-256-GCM sealed box; open with `walletd secret open`' },
    secretType: { const: 'bip39-mnemonic' },
    sealedSecret: { type: 'string' },
  },
} as const;
