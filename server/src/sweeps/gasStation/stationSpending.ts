import type { Db } from '@walletd/core';

/**
 * What the station gave (for one rule, or every rule of a wallet) in the last 24 hours, native base
 * units. Gas top-ups: amounts and fee caps of those in flight, amounts and fees of confirmed ones,
 * the fee of a rejected one (nothing else of it left the station); cancelled ones took nothing.
 * Sweeps it paid as fee payer (Solana: the station is their last source address): their fee the
 * same way (cap in flight, fee once final), rent of a new token account included.
 */
export async function topUpSpending24h(db: Db, of: { ruleId: number } | { walletId: number }): Promise<bigint> {
  const [column, id] = 'ruleId' in of ? ['sweep_rule_id', of.ruleId] : ['wallet_id', of.walletId];
  const { rows } = await db.raw(
    `select coalesce(sum(case
        when kind = 'sweep' or status = 'rejected' then coalesce(fee, (unsigned_tx->>'fee')::numeric, 0)
        else amount + coalesce(fee, (unsigned_tx->>'fee')::numeric, 0) end), 0)::text as spent
       from withdrawals w
      where ?? = ? and status <> 'cancelled' and created_at > now() - interval '24 hours'
        and (kind = 'gas_topup'
          or (kind = 'sweep' and array_length(source_addresses, 1) > 1
              and source_addresses[array_length(source_addresses, 1)] in
                  (select a.address from addresses a where a.wallet_id = w.wallet_id and a.kind = 'gas_station')))`,
    [column, id],
  );
  return BigInt((rows[0] as { spent: string }).spent);
}
