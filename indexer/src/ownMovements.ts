import type { DetectedTransfer } from '@walletd/core';
import type { Knex } from 'knex';
import type { ChainKey } from './transfers/types';

/**
 * Which of `transfers` are the wallet's own movements, as `ownMovementKey`s. An output paying the
 * wallet inside one of the wallet's own withdrawals (UTXO change, later a TON bounce or a jetton
 * `excesses` refund) is an internal movement: never a deposit event, never counted as incoming. It needs no transfer row: the withdrawal row records the transaction (its
 * payload lists the change output), the coins stay spendable because coin selection scans the
 * wallet's addresses on the node, and balances subtract only what the withdrawal paid out and its
 * fee. The withdrawal's hash is stored when it is signed, before any broadcast, so its own outputs
 * are known here before the node can show them in its mempool or a block.
 */
export async function ownMovements(trx: Knex | Knex.Transaction, k: ChainKey, transfers: DetectedTransfer[]): Promise<Set<string>> {
  if (transfers.length === 0) return new Set();
  const rows = (await trx('withdrawals as w')
    .join('addresses as a', 'a.wallet_id', 'w.wallet_id')
    .where({ 'w.chain': k.chain, 'w.network': k.network, 'a.chain': k.chain, 'a.network': k.network })
    .whereIn('w.tx_hash', [...new Set(transfers.map((t) => t.txHash))])
    .whereIn('a.match_key', [...new Set(transfers.map((t) => t.toKey))])
    .select('w.tx_hash', 'a.match_key')) as { tx_hash: string; match_key: string }[];
  return new Set(rows.map((r) => ownMovementKey(r.tx_hash, r.match_key)));
}

/** The key `ownMovements` returns for a transfer: its transaction and the address it pays. */
export const ownMovementKey = (txHash: string, toKey: string): string => `${txHash}:${toKey}`;
