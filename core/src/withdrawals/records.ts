import type { AssetRef, Chain } from '@walletd/plugin-kit';
import { type EventType, recordEvent } from '../events';
import { InvariantError, fromBaseUnits, parseBaseUnits } from '@walletd/plugin-kit';
import type { UnsignedWithdrawal, WithdrawalExpiry } from '@walletd/plugin-kit';
import type { Knex } from 'knex';

/** Before publication: prepared → signed (→ cancelled from prepared). Spec 3.2 after it. */
export const WITHDRAWAL_STATUSES = ['prepared', 'signed', 'broadcast', 'confirmed', 'rejected', 'cancelled'] as const;
export type WithdrawalStatus = (typeof WITHDRAWAL_STATUSES)[number];

/** One recipient as the withdrawal row stores it (amount in base units as a decimal string). */
export interface StoredWithdrawalOutput {
  toAddress: string;
  /** Base units. */
  amount: string;
  /** What the transaction carries for this recipient; absent when none (migration 008 checks the shape). */
  memo?: string;
  destinationTag?: number;
}

/** The memo and destination tag of an output, only those present (never an undefined or null key). */
export const outputMemo = (o: { memo?: string | null; destinationTag?: number | null }): { memo?: string; destinationTag?: number } => ({
  ...(o.memo !== undefined && o.memo !== null ? { memo: o.memo } : {}),
  ...(o.destinationTag !== undefined && o.destinationTag !== null ? { destinationTag: o.destinationTag } : {}),
});

/** The stored unsigned transaction: the plugin's payload and its fee bound (base units). */
export interface StoredUnsigned {
  payload: unknown;
  fee: string;
  /** The transaction's validity limit (contract v2), heights as decimal strings. */
  expiresAt?: { height?: string; time?: string };
}

/** The unsigned transaction as stored: payload, fee bound and validity limit, no bigint in JSON. */
export function storedUnsigned(u: { payload: unknown; fee: bigint; expiresAt?: WithdrawalExpiry }): string {
  const stored: StoredUnsigned = { payload: u.payload, fee: u.fee.toString() };
  if (u.expiresAt)
    stored.expiresAt = {
      ...(u.expiresAt.height !== undefined ? { height: u.expiresAt.height.toString() } : {}),
      ...(u.expiresAt.time !== undefined ? { time: u.expiresAt.time } : {}),
    };
  return JSON.stringify(stored);
}

export interface WithdrawalRow {
  id: number;
  company_id: number;
  wallet_id: number;
  request_id: number | null;
  idempotency_key: string | null;
  intent_hash: string;
  chain: string;
  network: string;
  asset_key: string;
  asset: AssetRef;
  amount: string;
  to_address: string | null;
  outputs: StoredWithdrawalOutput[];
  from_address: string;
  source_addresses: string[];
  source_indexes: number[];
  status: WithdrawalStatus;
  unsigned_tx: StoredUnsigned | null;
  signed_tx: string | null;
  tx_hash: string | null;
  signed_by: string | null;
  fee: string | null;
  confirmations: number | null;
  block_number: string | null;
  reason: string | null;
  last_error: string | null;
  /** A broadcast in progress (migration 007): its token and lease. */
  send_claim: string | null;
  send_until: Date | null;
  created_by_key: number | null;
  /** 'sweep' when a sweep rule made it (migration 025), 'gas_topup' when its gas station paid a source's fee (029), else 'payout'. */
  kind: 'payout' | 'sweep' | 'gas_topup';
  sweep_rule_id: number | null;
  created_at: Date;
  updated_at: Date;
  signed_at: Date | null;
  broadcast_at: Date | null;
  confirmed_at: Date | null;
}

/**
 * The plugin's view of a stored withdrawal (the intent is rebuilt from the immutable columns, the
 * memo and tag of each output with it): what signing, every rebuild, `checkSigned` and `verify` see.
 */
export function unsignedFromRow(row: WithdrawalRow): UnsignedWithdrawal {
  return {
    intent: {
      chain: row.chain as Chain,
      network: row.network,
      asset: row.asset,
      outputs: row.outputs.map((o) => ({ to: o.toAddress, amount: parseBaseUnits(o.amount), ...outputMemo(o) })),
      sources: row.source_addresses,
    },
    payload: row.unsigned_tx?.payload ?? null,
    fee: parseBaseUnits(row.unsigned_tx?.fee ?? '0'),
    sourceAddresses: row.source_addresses,
    ...(row.unsigned_tx?.expiresAt ? { expiresAt: expiryFromStored(row.unsigned_tx.expiresAt) } : {}),
  };
}

function expiryFromStored(e: NonNullable<StoredUnsigned['expiresAt']>): WithdrawalExpiry {
  return { ...(e.height !== undefined ? { height: BigInt(e.height) } : {}), ...(e.time !== undefined ? { time: e.time } : {}) };
}

const publicAsset = ({ key, symbol, decimals, contractAddress }: AssetRef): AssetRef => ({ key, symbol, decimals, contractAddress });

/**
 * Spec 2.7: the withdrawal event data, amounts as exact decimal strings. `native`: the chain's
 * native asset as its plugin declares it, needed for the fee of a confirmed withdrawal.
 */
export function withdrawalData(
  row: WithdrawalRow,
  status: 'broadcast' | 'confirmed' | 'rejected',
  native?: AssetRef,
): Record<string, unknown> {
  const asset = publicAsset(row.asset);
  const show = (units: string) => fromBaseUnits(parseBaseUnits(units), asset.decimals);
  const data: Record<string, unknown> = {
    chain: row.chain,
    network: row.network,
    withdrawalId: row.id,
    txHash: row.tx_hash,
    status,
    amount: show(row.amount),
    asset,
    fromAddress: row.from_address,
    sourceAddresses: row.source_addresses,
    // Rows written before migration 025 read as payouts.
    kind: row.kind ?? 'payout',
  };
  if (row.sweep_rule_id !== null && row.sweep_rule_id !== undefined) data.sweepRuleId = row.sweep_rule_id;
  // One recipient: its memo and tag beside toAddress (as a deposit's are); several: in each output.
  if (row.outputs.length === 1 && row.to_address) Object.assign(data, { toAddress: row.to_address }, outputMemo(row.outputs[0] ?? {}));
  else data.outputs = row.outputs.map((o) => ({ toAddress: o.toAddress, amount: show(o.amount), ...outputMemo(o) }));
  if (status === 'confirmed') {
    data.confirmations = row.confirmations ?? 0;
    if (row.fee !== null) {
      if (!native)
        throw new InvariantError(`withdrawal ${row.id}: a confirmed withdrawal's event needs its chain's native asset for the fee`);
      data.fee = { amount: fromBaseUnits(parseBaseUnits(row.fee), native.decimals), asset: native };
    }
  }
  if (status === 'rejected') {
    data.reason = row.reason ?? 'provider_error';
    // A landed on-chain cancel (issue 46) paid its fee: the event says how much, as a confirmation does.
    if (row.fee !== null && native) data.fee = { amount: fromBaseUnits(parseBaseUnits(row.fee), native.decimals), asset: native };
  }
  return data;
}

const EVENT_FOR = { broadcast: 'withdrawal.broadcast', confirmed: 'withdrawal.confirmed', rejected: 'withdrawal.rejected' } as const;

/** Call inside the transaction that moved the row to `status`: the event commits with it. */
export async function recordWithdrawalEvent(
  trx: Knex.Transaction,
  row: WithdrawalRow,
  status: 'broadcast' | 'confirmed' | 'rejected',
  native?: AssetRef,
): Promise<void> {
  const type: EventType = EVENT_FOR[status];
  await recordEvent(trx, {
    type,
    chain: row.chain,
    network: row.network,
    companyId: row.company_id,
    walletId: row.wallet_id,
    data: withdrawalData(row, status, native),
  });
}

/** One line of a withdrawal's history (GET /v1/withdrawals/:id shows them in order). */
export async function addHistory(
  trx: Knex | Knex.Transaction,
  withdrawalId: number,
  status: string,
  details: Record<string, unknown> | null = null,
): Promise<void> {
  await trx('withdrawal_history').insert({ withdrawal_id: withdrawalId, status, details });
}

/**
 * Moves a row to a new state with its history line and (after publication) its event, in the
 * caller's transaction. Returns the updated row.
 */
export async function moveWithdrawal(
  trx: Knex.Transaction,
  row: WithdrawalRow,
  status: WithdrawalStatus,
  changes: Partial<Record<keyof WithdrawalRow, unknown>>,
  details: Record<string, unknown> | null = null,
  native?: AssetRef,
): Promise<WithdrawalRow> {
  const [updated] = (await trx('withdrawals')
    .where({ id: row.id })
    .update({ ...changes, status, updated_at: trx.fn.now() })
    .returning('*')) as WithdrawalRow[];
  if (!updated) throw new InvariantError(`withdrawal ${row.id} vanished`);
  await addHistory(trx, row.id, status, details);
  if (status === 'broadcast' || status === 'confirmed' || status === 'rejected') await recordWithdrawalEvent(trx, updated, status, native);
  return updated;
}
