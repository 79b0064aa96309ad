import type { DetectedTransfer } from '@walletd/core';
import type { Knex } from 'knex';
import type { ChainKey } from '../types';

/**
 * Which of `transfers` are the wallet's own movements: never a deposit event, never counted as
 * incoming. It needs no transfer row: the withdrawal row records the transaction. Two rules:
 * - by transaction: an output paying the wallet inside one of the wallet's own withdrawals (UTXO
 *   change), or inside one of their replacements (withdrawal_attempts). The withdrawal's hash is stored when it is signed, before any broadcast, so its own
 *   outputs are known here before the node can show them in its mempool or a block;
 * - by sender (account chains, `fromKey`): a transfer whose sender is an address of the recipient's
 *   own wallet, whoever made it and whatever its hash. The recipient's side of a move between two
 *   addresses of one wallet can be a transaction of its own (TON: every account has its own
 *   transaction for the message it receives), which the first rule cannot see.
 */
export async function ownMovements(
  trx: Knex | Knex.Transaction,
  k: ChainKey,
  transfers: DetectedTransfer[],
): Promise<(t: DetectedTransfer) => boolean> {
  if (transfers.length === 0) return () => false;
  const toKeys = [...new Set(transfers.map((t) => t.toKey))];
  const byHash = (await trx('withdrawals as w')
    .join('addresses as a', 'a.wallet_id', 'w.wallet_id')
    .where({ 'w.chain': k.chain, 'w.network': k.network, 'a.chain': k.chain, 'a.network': k.network })
    .whereIn('w.tx_hash', [...new Set(transfers.map((t) => t.txHash))])
    .whereIn('a.match_key', toKeys)
    .select('w.tx_hash', 'a.match_key')) as { tx_hash: string; match_key: string }[];
  // A replacement (issue 46: an RBF speed-up or cancel) pays its change to the wallet under its own hash.
  const byAttempt = (await trx('withdrawal_attempts as t')
    .join('withdrawals as w', 'w.id', 't.withdrawal_id')
    .join('addresses as a', 'a.wallet_id', 'w.wallet_id')
    .where({ 'w.chain': k.chain, 'w.network': k.network, 'a.chain': k.chain, 'a.network': k.network })
    .whereRaw('lower(t.tx_hash) = any(?)', [[...new Set(transfers.map((t) => t.txHash.toLowerCase()))]])
    .whereIn('a.match_key', toKeys)
    .select('t.tx_hash', 'a.match_key')) as { tx_hash: string; match_key: string }[];
  const own = new Set([...byHash, ...byAttempt].map((r) => `${r.tx_hash}:${r.match_key}`));
  const fromKeys = [...new Set(transfers.flatMap((t) => (t.fromKey === undefined ? [] : [t.fromKey])))];
  if (fromKeys.length > 0) {
    // Sender and recipient rows of one wallet (a token account's row carries its owner's wallet).
    const bySender = (await trx('addresses as s')
      .join('addresses as r', 'r.wallet_id', 's.wallet_id')
      .where({ 's.chain': k.chain, 's.network': k.network, 'r.chain': k.chain, 'r.network': k.network })
      .whereIn('s.match_key', fromKeys)
      .whereIn('r.match_key', toKeys)
      .select('s.match_key as from_key', 'r.match_key as to_key')) as { from_key: string; to_key: string }[];
    for (const r of bySender) own.add(`from ${r.from_key}:${r.to_key}`);
  }
  return (t) => own.has(`${t.txHash}:${t.toKey}`) || (t.fromKey !== undefined && own.has(`from ${t.fromKey}:${t.toKey}`));
}
