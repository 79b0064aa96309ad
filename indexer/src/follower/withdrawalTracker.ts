import {
  type ChainPlugin,
  type ChainReader,
  type Db,
  type Logger,
  type UnsignedWithdrawal,
  type WithdrawalRow,
  type SignedWithdrawal,
  chainTableOf,
  loadAttempts,
  moveWithdrawal,
  unsignedFromRow,
} from '@walletd/core';
import type { Fence } from '../types';
import { steppedBack } from '../store/stepBackWithdrawals';
import { verifyAttempts } from './attemptsVerdict';
import type { ChainKey } from '../types';

export interface TrackInput {
  head: bigint;
  /** The node's finalized height when the network confirms by finality, else null. */
  finalized: bigint | null;
  threshold: number;
  finality: 'confirmations' | 'finalized';
}

export interface TrackOutcome {
  broadcast: number;
  confirmed: number;
  rejected: number;
  resent: number;
}

/**
 * Follows every signed or broadcast withdrawal of one chain/network through the plugin's
 * `verify`, and moves it with its event in one transaction:
 * - signed, and the node knows the transaction: it was sent by a process that died before
 *   recording it → broadcast (reconciled by hash; nothing is sent again);
 * - broadcast and paid past the threshold (a token needs its matching Transfer log) → confirmed,
 *   with the fee; reverted → rejected `failed_on_chain`; its nonce taken by another transaction →
 *   rejected `reorg` when it had been mined, else `mempool_dropped`;
 * - broadcast but unknown to the node while it can still land → the same signed bytes again.
 * Node calls run with no transaction open. Rows another transaction holds are skipped this round;
 * an API broadcast in flight holds a claim, not a lock: if the node already knows its transaction
 * it is recorded here and the broadcast call returns the recorded row.
 */
export async function trackWithdrawals(
  db: Db,
  logger: Logger,
  plugin: ChainPlugin,
  reader: ChainReader,
  key: ChainKey,
  input: TrackInput,
  fence?: Fence,
): Promise<TrackOutcome> {
  const out: TrackOutcome = { broadcast: 0, confirmed: 0, rejected: 0, resent: 0 };
  const verbs = plugin.withdrawals;
  if (!verbs) return out;
  // The fee of a confirmed withdrawal is in the native asset the plugin declares.
  const native = chainTableOf(plugin.chains).nativeAsset(key.chain, key.network);
  const rows = (await db('withdrawals').where(key).whereIn('status', ['signed', 'broadcast']).orderBy('id').limit(500)) as WithdrawalRow[];
  // Mined once and taken back by a deep reorg: their block is no longer known, but they were seen in one.
  const reorged = await steppedBack(
    db,
    rows.filter((r) => r.status === 'broadcast' && r.block_number === null).map((r) => Number(r.id)),
  );
  for (const row of rows) {
    if (!row.tx_hash || !row.signed_tx) continue;
    let verdict: Awaited<ReturnType<typeof verbs.verify>>;
    // A replaced withdrawal (sped up, cancelled on chain) is judged by all its transactions.
    let cancel = false;
    let again: SignedWithdrawal = { raw: row.signed_tx, txHash: row.tx_hash };
    try {
      const seenInBlock = row.block_number !== null || reorged.has(Number(row.id));
      const attempts = row.status === 'broadcast' ? await loadAttempts(db, row.id) : [];
      if (attempts.length > 0) {
        const judged = await verifyAttempts(verbs, row, attempts, reader, seenInBlock);
        verdict = judged.verdict;
        cancel = judged.cancel;
        if (judged.resend) again = judged.resend;
      } else verdict = await verbs.verify(unsignedFromRow(row), row.tx_hash, reader, { seenInBlock });
    } catch (err) {
      // One withdrawal the node cannot answer for does not hold up the others. Its status stays (an
      // unknown outcome is never a verdict); why it is unknown is shown as its lastError.
      logger.warn({ err, withdrawalId: row.id }, 'could not verify a withdrawal; retrying next round');
      await noteUnverified(db, row, err, fence);
      continue;
    }
    const block = verdict.blockNumber?.toString();
    let resend = false;
    await db.transaction(async (trx) => {
      await fence?.(trx);
      let cur = (await trx('withdrawals').where({ id: row.id }).forUpdate().skipLocked().first()) as WithdrawalRow | undefined;
      if (!cur || cur.status !== row.status) return;
      // The node answers again: an earlier "could not verify" no longer holds.
      if (cur.last_error?.startsWith(UNVERIFIED)) await trx('withdrawals').where({ id: cur.id }).update({ last_error: null });
      if (cur.status === 'signed') {
        if (verdict.status === 'missing') return;
        // Known to the node (pending, mined, or mined and reverted): it was sent. Rejected without a
        // block (its nonce or coins went elsewhere): never published, rejected below directly.
        if (verdict.status !== 'rejected' || block !== undefined) {
          cur = await moveWithdrawal(
            trx,
            cur,
            'broadcast',
            { broadcast_at: trx.fn.now() },
            { reconciled: 'the node knows the transaction' },
          );
          out.broadcast++;
        }
      }
      const seen = block ?? cur.block_number;
      switch (verdict.status) {
        case 'missing':
          // An expired transaction is never sent again, whatever the plugin said: it can no longer
          // be included, and its plugin's verify rejects it (`expired`) once that is final.
          resend = !pastExpiry(unsignedFromRow(cur), input.head);
          return;
        case 'pending':
          if (block !== undefined && block !== cur.block_number)
            await trx('withdrawals').where({ id: cur.id }).update({ block_number: block, updated_at: trx.fn.now() });
          return;
        case 'rejected':
          await moveWithdrawal(
            trx,
            cur,
            'rejected',
            {
              reason: verdict.reason ?? 'provider_error',
              fee: verdict.fee?.toString() ?? null,
              block_number: seen,
              ...(verdict.txHash ? { tx_hash: verdict.txHash } : {}),
            },
            { reason: verdict.reason },
          );
          out.rejected++;
          return;
        case 'confirmed': {
          const final =
            input.finality === 'finalized'
              ? input.finalized !== null && verdict.blockNumber !== undefined && verdict.blockNumber <= input.finalized
              : verdict.confirmations >= input.threshold;
          const changes = {
            confirmations: verdict.confirmations,
            fee: verdict.fee?.toString() ?? null,
            block_number: seen,
            ...(verdict.txHash ? { tx_hash: verdict.txHash } : {}),
          };
          if (!final) {
            await trx('withdrawals')
              .where({ id: cur.id })
              .update({ ...changes, updated_at: trx.fn.now() });
            return;
          }
          if (cancel) {
            // The zero-value replacement landed: nothing paid, the amount released, its fee spent.
            await moveWithdrawal(
              trx,
              cur,
              'rejected',
              { ...changes, reason: 'cancelled_onchain' },
              { reason: 'cancelled_onchain' },
              native,
            );
            out.rejected++;
            return;
          }
          await moveWithdrawal(
            trx,
            cur,
            'confirmed',
            { ...changes, confirmed_at: trx.fn.now() },
            { confirmations: verdict.confirmations },
            native,
          );
          out.confirmed++;
        }
      }
    });
    if (resend) {
      // The node forgot it (restart, eviction) and its nonce is still free: the same bytes again.
      try {
        await verbs.broadcast(again, reader);
        out.resent++;
      } catch (err) {
        logger.warn({ err, withdrawalId: row.id }, 'could not re-send a withdrawal the node does not know; retrying next round');
      }
    }
  }
  return out;
}

const UNVERIFIED = 'could not verify: ';

/** Records why a withdrawal could not be verified, on the row as it is (status untouched). */
async function noteUnverified(db: Db, row: WithdrawalRow, err: unknown, fence?: Fence): Promise<void> {
  const message = `${UNVERIFIED}${err instanceof Error ? err.message : String(err)}`;
  if (row.last_error === message) return;
  await db.transaction(async (trx) => {
    await fence?.(trx);
    await trx('withdrawals').where({ id: row.id, status: row.status }).update({ last_error: message, updated_at: trx.fn.now() });
  });
}

/** Past its validity limit by the node's head or the clock (contract v2 `expiresAt`). */
export function pastExpiry(unsigned: UnsignedWithdrawal, head: bigint): boolean {
  const e = unsigned.expiresAt;
  if (!e) return false;
  if (e.height !== undefined && head > e.height) return true;
  return e.time !== undefined && Date.now() > Date.parse(e.time);
}
