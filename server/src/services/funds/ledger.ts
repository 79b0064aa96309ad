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
}

/**
 * Credited and reserved per asset, from the rows themselves (transfers and withdrawals): no second
 * ledger that could drift from them. Fees count on the native asset, against the address that
 * pays them: the last of a withdrawal's source addresses (its only one except on Solana, where the
 * fee payer is listed after the token's source). Caller holds the wallet's lock when the answer
 * decides a reservation (`lockWalletFunds`).
 */
export async function ledger(db: Knex | Knex.Transaction, scope: LedgerScope): Promise<Map<string, Holding>> {
  const reserving = scope.reserving ?? RESERVING;
  const byAddr = scope.address !== null;
  const bindings: Record<string, unknown> = {
    wallet: scope.walletId,
    native: scope.nativeKey,
    address: scope.address,
    reserving: reserving.join(','),
    except: scope.exceptId ?? 0,
  };
  // The status list as one text binding: the statement's text stays the same whatever the list.
  const { rows } = await db.raw(
    `select asset_key, sum(credited)::text as credited, sum(reserved)::text as reserved from (
       select t.asset_key, t.amount as credited, 0::numeric as reserved
         from transfers t ${byAddr ? 'join addresses a on a.id = t.address_id' : ''}
        where t.wallet_id = :wallet and t.direction = 'incoming' and t.status = 'confirmed'
              ${byAddr ? 'and a.address = :address' : ''}
       union all
       select w.asset_key, w.internal_amount, 0 from withdrawals w ${byAddr ? 'join addresses a on a.id = w.to_address_id' : ''}
        where w.wallet_id = :wallet and w.status = 'confirmed' and w.internal_amount > 0
              ${byAddr ? 'and a.address = :address' : ''}
       union all
       select w.asset_key,
              case when w.status = 'confirmed' then -w.amount else 0 end,
              case when w.status = 'confirmed' then 0 else w.amount end
         from withdrawals w
        where w.wallet_id = :wallet and w.id <> :except
              and (w.status = 'confirmed' or w.status = any(string_to_array(:reserving, ',')))
              ${byAddr ? 'and w.from_address = :address' : ''}
       union all
       select :native,
              case when w.status in ('confirmed', 'rejected') then -coalesce(w.fee, 0) else 0 end,
              case when w.status in ('confirmed', 'rejected') then 0 else coalesce((w.unsigned_tx->>'fee')::numeric, 0) end
         from withdrawals w
        where w.wallet_id = :wallet and w.id <> :except
              and (w.status in ('confirmed', 'rejected') or w.status = any(string_to_array(:reserving, ',')))
              ${byAddr ? 'and w.source_addresses[array_length(w.source_addresses, 1)] = :address' : ''}
     ) m group by asset_key`,
    bindings,
  );
  const out = new Map<string, Holding>();
  for (const r of rows as { asset_key: string; credited: string; reserved: string }[])
    out.set(r.asset_key, { credited: parseBaseUnits(r.credited), reserved: parseBaseUnits(r.reserved) });
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
