import type { Db, WithdrawalRow } from '@walletd/core';

/**
 * Issue 46 §6: the in-flight withdrawal that holds this one back, on chains whose transactions
 * carry a sequential nonce per source (EVM): the earliest one from the same source address, still
 * signed or broadcast, with a lower nonce. A payout can land only after it (or after it is sped up
 * or cancelled on chain). null when nothing holds it, or the chain has no such nonce.
 */
export async function blockedBy(db: Db, row: WithdrawalRow): Promise<number | null> {
  if (row.status !== 'signed' && row.status !== 'broadcast') return null;
  const nonce = (row.unsigned_tx?.payload as { nonce?: unknown } | null)?.nonce;
  if (typeof nonce !== 'number') return null;
  const holder = (await db('withdrawals')
    .where({ wallet_id: row.wallet_id, chain: row.chain, network: row.network, from_address: row.from_address })
    .whereIn('status', ['signed', 'broadcast'])
    .whereNot({ id: row.id })
    .whereRaw("jsonb_typeof(unsigned_tx->'payload'->'nonce') = 'number' and (unsigned_tx->'payload'->>'nonce')::bigint < ?", [nonce])
    .orderByRaw("(unsigned_tx->'payload'->>'nonce')::bigint")
    .first('id')) as { id: number } | undefined;
  return holder ? holder.id : null;
}
