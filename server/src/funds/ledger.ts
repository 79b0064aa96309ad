import { parseBaseUnits } from '@walletd/core';
import type { Knex } from 'knex';

/** A withdrawal reserves from `prepared` until it is confirmed, rejected or cancelled. */
export const RESERVING = ['prepared', 'signed', 'broadcast'] as const;
export type ReservingStatus = (typeof RESERVING)[number];

export interface LedgerScope {
  walletId: number;
  /**
   * One address of the wallet on account chains (each account pays only with what it holds);
   * null for the wallet's pool (UTXO coins, an account-tag wallet's one account, balance views).
   */
  address: string | null;
  /** The chain's native asset key: where fees are counted. */
  nativeKey: string;
  /** Which in-flight statuses count as reserved (broadcast checks only what is already sent). */
  reserving?: readonly ReservingStatus[];
  /** A withdrawal left out of the reserved sum (the one being signed or sent is added by the caller). */
  exceptId?: number;
}

export interface Holding {
  /** Confirmed deposits, plus confirmed internal movements in, minus confirmed payouts and fees paid. */
  credited: bigint;
  /** Amounts and fee caps of in-flight withdrawals. */
  reserved: bigint;
  /** Detected deposits not yet final. */
  pending: bigint;
}

/**
 * Credited, pending and reserved per asset from `balance_ledger` (migration 026): one row per asset
 * at the scope, kept by the database as transfers and withdrawals change, never a sum over
 * history. Fees are kept under the key `fee` and count on the native asset, against the address
 * that pays them: the last of a withdrawal's source addresses (its only one except on Solana, where
 * the fee payer is listed after the token's source). Caller holds the wallet's lock when the answer
 * decides a reservation (`lockWalletFunds`).
 */
export async function ledger(db: Knex | Knex.Transaction, scope: LedgerScope): Promise<Map<string, Holding>> {
  const { rows } = await db.raw(
    'select asset_key, confirmed::text, pending::text, reserved::text from balance_ledger where wallet_id = ? and address = ?',
    [scope.walletId, scope.address ?? ''],
  );
  const out = new Map<string, Holding>();
  const at = (key: string) => {
    const h = out.get(key) ?? { credited: 0n, reserved: 0n, pending: 0n };
    out.set(key, h);
    return h;
  };
  for (const r of rows as { asset_key: string; confirmed: string; pending: string; reserved: string }[]) {
    const h = at(r.asset_key === 'fee' ? scope.nativeKey : r.asset_key);
    h.credited += parseBaseUnits(r.confirmed);
    h.pending += parseBaseUnits(r.pending);
    h.reserved += parseBaseUnits(r.reserved);
  }
  const reserving = scope.reserving ?? RESERVING;
  if (reserving.length === RESERVING.length && scope.exceptId === undefined) return out;
  // A narrower view (broadcast counts only what is sent; sign leaves the withdrawal itself out):
  // what it leaves out is taken back, read from the in-flight rows only (`withdrawals_reserving`).
  const { rows: left } = await db.raw(
    `select w.asset_key, w.from_address, w.source_addresses[array_length(w.source_addresses, 1)] as fee_payer,
            w.amount::text as amount, coalesce((w.unsigned_tx->>'fee')::numeric, 0)::text as fee
       from withdrawals w
      where w.wallet_id = :wallet and w.status in ('prepared', 'signed', 'broadcast')
        and (w.id = :except or not (w.status = any(string_to_array(:reserving, ','))))`,
    { wallet: scope.walletId, except: scope.exceptId ?? 0, reserving: reserving.join(',') },
  );
  for (const w of left as { asset_key: string; from_address: string | null; fee_payer: string | null; amount: string; fee: string }[]) {
    if (scope.address === null || w.from_address === scope.address) at(w.asset_key).reserved -= parseBaseUnits(w.amount);
    if (scope.address === null || w.fee_payer === scope.address) at(scope.nativeKey).reserved -= parseBaseUnits(w.fee);
  }
  return out;
}

/** The in-flight withdrawals holding funds at a scope, oldest first (named in a refusal). */
export async function holders(db: Knex | Knex.Transaction, scope: LedgerScope, assetKey: string): Promise<number[]> {
  const q = db('withdrawals')
    .where({ wallet_id: scope.walletId })
    .whereIn('status', [...(scope.reserving ?? RESERVING)])
    .whereNot({ id: scope.exceptId ?? 0 })
    .orderBy('id')
    .limit(20)
    .pluck('id');
  if (scope.address !== null) {
    const address = scope.address;
    // Fees of every withdrawal count on the native asset, so a token payout can hold native funds.
    q.andWhere((w) => {
      w.where({ from_address: address, asset_key: assetKey });
      if (assetKey === scope.nativeKey) w.orWhereRaw('source_addresses[array_length(source_addresses, 1)] = ?', [address]);
    });
  } else if (assetKey !== scope.nativeKey) q.andWhere({ asset_key: assetKey });
  return (await q) as number[];
}

/**
 * Serialises every reservation decision of one wallet (prepare, sign, broadcast) for the rest of
 * the caller's transaction: the check and the row that reserves commit together.
 */
export async function lockWalletFunds(trx: Knex.Transaction, walletId: number): Promise<void> {
  await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`walletd:funds:${walletId}`]);
}
