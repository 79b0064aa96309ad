import { type AssetRef, type EventType, type RecordEventInput, fromBaseUnits, parseBaseUnits, recordEvents } from '@walletd/core';
import type { Knex } from 'knex';

export interface TransferRow {
  id: number;
  company_id: number;
  wallet_id: number;
  address_id: number;
  chain: string;
  network: string;
  tx_hash: string;
  event_index: number;
  log_index: number | null;
  event_type: string;
  asset_key: string;
  amount: string;
  from_address: string | null;
  to_address: string;
  block_number: number | null;
  status: string;
  confirmations: number;
  reason: string | null;
  extra: Record<string, unknown> | null;
  /** Set by the statements that retract a row (`deposit.rejected`): the status it had before. */
  previous_status?: string | null;
}

/** Spec 2.6: the deposit event data, amounts as exact decimal strings. */
export function depositData(t: TransferRow, asset: AssetRef): Record<string, unknown> {
  const { key, symbol, decimals, contractAddress } = asset;
  return {
    // Chain-specific fields first: they can never override the fields the spec defines.
    ...(t.extra ?? {}),
    chain: t.chain,
    network: t.network,
    txHash: t.tx_hash,
    addressId: t.address_id,
    confirmations: t.confirmations,
    status: t.status,
    direction: 'incoming',
    amount: fromBaseUnits(parseBaseUnits(t.amount), decimals),
    asset: { key, symbol, decimals, contractAddress },
    ...(t.from_address ? { fromAddress: t.from_address } : {}),
    toAddress: t.to_address,
    eventType: t.event_type,
    eventIndex: t.event_index,
    ...(t.log_index !== null ? { logIndex: t.log_index } : {}),
    ...(t.reason ? { reason: t.reason } : {}),
    // A receiver that credited on deposit.confirmed reverses the credit when this says `confirmed`.
    ...(t.status === 'rejected' && t.previous_status ? { previousStatus: t.previous_status } : {}),
  };
}

/** A deposit row's event, as core's `recordEvent(s)` take it. */
export function depositEvent(type: EventType, row: TransferRow, asset: AssetRef): RecordEventInput {
  return {
    type,
    chain: row.chain,
    network: row.network,
    companyId: row.company_id,
    walletId: row.wallet_id,
    data: depositData(row, asset),
  };
}

/** Several deposit events in one statement, in the given order (a block's new deposits). */
export async function recordDepositEvents(
  trx: Knex.Transaction,
  type: EventType,
  items: { row: TransferRow; asset: AssetRef }[],
): Promise<void> {
  await recordEvents(
    trx,
    items.map(({ row, asset }) => depositEvent(type, row, asset)),
  );
}
