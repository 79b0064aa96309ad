import type { Db } from '@walletd/core';

/**
 * What gas top-ups (of one rule, or of every rule of a wallet) took or hold from the station in
 * the last 24 hours, native base units: amounts and fee caps of those in flight, amounts and fees
 * of confirmed ones, the fee of a rejected one (nothing else of it left the station); cancelled
 * ones took nothing.
 */
export async function topUpSpending24h(db: Db, of: { ruleId: number } | { walletId: number }): Promise<bigint> {
  const [column, id] = 'ruleId' in of ? ['sweep_rule_id', of.ruleId] : ['wallet_id', of.walletId];
  const { rows } = await db.raw(
    `select coalesce(sum(case
        when status = 'rejected' then coalesce(fee, 0)
        else amount + coalesce(fee, (unsigned_tx->>'fee')::numeric, 0) end), 0)::text as spent
       from withdrawals
      where ?? = ? and kind = 'gas_topup' and status <> 'cancelled'
        and created_at > now() - interval '24 hours'`,
    [column, id],
  );
  return BigInt((rows[0] as { spent: string }).spent);
}
