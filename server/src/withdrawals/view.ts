import { type ChainTable, type Db, fromBaseUnits, loadAttempts, parseBaseUnits } from '@walletd/core';
import { type WithdrawalRow, outputMemo } from '@walletd/core';
import type { ConsoleWithdrawalView } from '@walletd/schemas';
import { blockedBy } from './blockedBy';
import { type IndexedHeights, indexedHeights, liveConfirmations } from '../wallets/liveConfirmations';

/** The API's view of a withdrawal (`GET /v1/withdrawals/:id`), declared once in the schemas' contract the console reads too. */
export type WithdrawalView = ConsoleWithdrawalView;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * `chains`: the loaded plugins' table (the fee's native asset). `heights`: the indexed heights a
 * list looked up once for all its rows; read here when not given.
 */
export async function toWithdrawalView(
  db: Db,
  chains: ChainTable,
  row: WithdrawalRow,
  withHistory = false,
  heights?: IndexedHeights,
): Promise<WithdrawalView> {
  const { key, symbol, decimals, contractAddress } = row.asset;
  const asset = { key, symbol, decimals, contractAddress };
  const native = chains.nativeAsset(row.chain, row.network);
  const show = (units: string) => fromBaseUnits(parseBaseUnits(units), decimals);
  const fee = (units: string | null | undefined) =>
    units ? { amount: fromBaseUnits(parseBaseUnits(units), native.decimals), asset: native } : null;
  // Only while it can still be signed elsewhere: afterwards the signed transaction is what counts
  // (and a list of withdrawals does not pay a query per row for it).
  const signable = row.status === 'prepared' && row.unsigned_tx !== null;
  const signers = signable
    ? ((await db('addresses')
        .where({ wallet_id: row.wallet_id })
        .whereIn('address', row.source_addresses ?? [])
        .whereIn('kind', ['deposit', 'change', 'account', 'gas_station'])
        .orderBy('derivation_index')
        .select('address', 'derivation_path as derivationPath')) as { address: string; derivationPath: string }[])
    : [];
  const view: WithdrawalView = {
    id: row.id,
    walletId: row.wallet_id,
    requestId: row.request_id,
    kind: row.kind,
    sweepRuleId: row.sweep_rule_id,
    status: row.status,
    chain: row.chain,
    network: row.network,
    asset,
    amount: show(row.amount),
    toAddress: row.to_address,
    outputs: row.outputs.map((o) => ({ toAddress: o.toAddress, amount: show(o.amount), ...outputMemo(o) })),
    fromAddress: row.from_address,
    sourceAddresses: row.source_addresses,
    idempotencyKey: row.idempotency_key,
    feeEstimate: fee(row.unsigned_tx?.fee),
    fee: fee(row.fee),
    txHash: row.tx_hash,
    // Current, not frozen at the count it was confirmed with (liveConfirmations.ts).
    confirmations: liveConfirmations(row, heights ?? (await indexedHeights(db, [row]))),
    reason: row.reason,
    lastError: row.last_error,
    signedBy: row.signed_by,
    unsignedTransaction: signable && row.unsigned_tx ? { payload: row.unsigned_tx.payload, signers } : null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    signedAt: iso(row.signed_at),
    broadcastAt: iso(row.broadcast_at),
    confirmedAt: iso(row.confirmed_at),
  };
  // Waiting behind an earlier nonce of the same source: which withdrawal holds it.
  const holder = await blockedBy(db, row);
  if (holder !== null) view.blockedBy = holder;
  if (withHistory) {
    const lines = (await db('withdrawal_history').where({ withdrawal_id: row.id }).orderBy('id')) as {
      status: string;
      details: Record<string, unknown> | null;
      created_at: Date;
    }[];
    view.history = lines.map((h) => ({ status: h.status, at: h.created_at.toISOString(), details: h.details }));
    const attempts = await loadAttempts(db, row.id);
    if (attempts.length > 0)
      view.attempts = attempts.map((t) => ({
        txHash: t.tx_hash,
        kind: t.kind,
        feeCap: { amount: fromBaseUnits(parseBaseUnits(t.fee_cap), native.decimals), asset: native },
        at: t.created_at.toISOString(),
      }));
  }
  return view;
}
