import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { AddressBookEntry, AddressBookEntryCreateRequest, AddressBookEntryList } from './addressBook';
import { Address, AddressCreateRequest, AddressList, Balances, Transaction, TransactionList } from './chainReads';
import { ErrorBody } from './common';
import { Asset, DepositEventData, EventEnvelope, EventFeed, ReconciliationEventData, WithdrawalEventData } from './events';
import { MeResponse } from './me';
import {
  DriftExplanation,
  ReconciliationCheck,
  ReconciliationCheckRun,
  ReconciliationDriftList,
  WalletReconciliation,
} from './reconciliation';
import { GasStation, GasStationCreateRequest, SweepRule, SweepRuleCreateRequest, SweepRuleList, SweepRuleUpdateRequest } from './sweeps';
import {
  Delivery,
  DeliveryDetail,
  DeliveryList,
  ReplayRequest,
  ReplayResponse,
  RotateSecretRequest,
  RotateSecretResponse,
  Webhook,
  WebhookCreateRequest,
  WebhookList,
  WebhookUpdateRequest,
  WebhookWithSecret,
} from './webhooks';
import { Wallet, WalletCreateRequest, WalletList, WalletSecretResponse, WalletUpdateRequest } from './wallets';
import {
  Withdrawal,
  WithdrawalBroadcastRequest,
  WithdrawalList,
  WithdrawalPrepareRequest,
  WithdrawalRequest,
  WithdrawalRequestCreateRequest,
  WithdrawalRequestList,
  WithdrawalSignRequest,
} from './withdrawals';
import { WithdrawalReplaceRequest } from './withdrawalReplace';
import { InvariantError } from '@walletd/core';

/** Every schema, by `$id`. Responses are validated in tests; requests on every call. */
export const SCHEMAS = {
  ErrorBody,
  MeResponse,
  Wallet,
  WalletList,
  WalletCreateRequest,
  WalletUpdateRequest,
  WalletSecretResponse,
  Asset,
  DepositEventData,
  WithdrawalEventData,
  ReconciliationEventData,
  EventEnvelope,
  EventFeed,
  Webhook,
  WebhookWithSecret,
  WebhookList,
  WebhookCreateRequest,
  WebhookUpdateRequest,
  RotateSecretRequest,
  RotateSecretResponse,
  ReplayRequest,
  ReplayResponse,
  Delivery,
  DeliveryList,
  DeliveryDetail,
  Address,
  AddressList,
  AddressCreateRequest,
  Balances,
  Transaction,
  TransactionList,
  Withdrawal,
  WithdrawalList,
  WithdrawalPrepareRequest,
  WithdrawalSignRequest,
  WithdrawalBroadcastRequest,
  WithdrawalReplaceRequest,
  WithdrawalRequest,
  WithdrawalRequestList,
  WithdrawalRequestCreateRequest,
  ReconciliationCheck,
  WalletReconciliation,
  ReconciliationDriftList,
  DriftExplanation,
  ReconciliationCheckRun,
  SweepRule,
  SweepRuleList,
  SweepRuleCreateRequest,
  SweepRuleUpdateRequest,
  GasStation,
  GasStationCreateRequest,
  AddressBookEntry,
  AddressBookEntryList,
  AddressBookEntryCreateRequest,
} as const;

export type SchemaId = keyof typeof SCHEMAS;

const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
addFormats(ajv);
for (const schema of Object.values(SCHEMAS)) ajv.addSchema(schema);

const compiled = new Map<SchemaId, ValidateFunction>();

/** Compiled once, on first use. */
export function validator(id: SchemaId): ValidateFunction {
  let fn = compiled.get(id);
  if (!fn) {
    fn = ajv.getSchema(id) as ValidateFunction;
    if (!fn) throw new InvariantError(`unknown schema ${id}`);
    compiled.set(id, fn);
  }
  return fn;
}

/** One readable sentence naming the offending fields, for a 400 message. */
export function describeErrors(errors: ErrorObject[] | null | undefined, where = 'body'): string {
  if (!errors?.length) return `invalid ${where}`;
  const parts = errors.slice(0, 5).map((e) => {
    const field = `${where}${e.instancePath.replace(/\//g, '.')}`;
    switch (e.keyword) {
      case 'additionalProperties':
        return `${field} has an unknown field "${String(e.params.additionalProperty)}"`;
      case 'required':
        return `${field} is missing "${String(e.params.missingProperty)}"`;
      case 'enum':
        return `${field} must be one of ${(e.params.allowedValues as unknown[]).join(', ')}`;
      case 'minProperties':
        return `${field} must not be empty`;
      default:
        return `${field} ${e.message ?? 'is invalid'}`;
    }
  });
  return parts.join('; ');
}

export { ajv };
