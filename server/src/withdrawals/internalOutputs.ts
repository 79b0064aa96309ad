import type { Knex } from 'knex';
import type { ResolvedIntent } from './intent';

/**
 * What the intent pays to addresses of its own wallet (matched by match key, so any display form
 * of the address counts). The indexer records no deposit for those outputs (an own movement), so
 * the funds ledger credits them from the withdrawal once it confirms; `addressId` is the address a
 * single internal output pays (account chains credit that address).
 */
export async function internalOutputs(
  db: Knex,
  walletId: number,
  intent: ResolvedIntent,
): Promise<{ amount: bigint; addressId: number | null }> {
  const keys = [...new Set(intent.outputs.map((o) => o.toKey))];
  const own = (await db('addresses')
    .where({ wallet_id: walletId })
    .whereIn('match_key', keys)
    .whereNull('destination_tag')
    .select('id', 'match_key')) as { id: number; match_key: string }[];
  const byKey = new Map(own.map((a) => [a.match_key, a.id]));
  let amount = 0n;
  for (const o of intent.outputs) if (byKey.has(o.toKey)) amount += o.amount;
  const only = intent.outputs.length === 1 ? byKey.get(intent.outputs[0]?.toKey ?? '') : undefined;
  return { amount, addressId: only ?? null };
}
