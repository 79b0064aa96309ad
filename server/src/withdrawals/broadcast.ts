import { BaseError, addHistory, moveWithdrawal, unsignedFromRow, type WithdrawalRow } from '@walletd/core';
import type { Knex } from 'knex';
import type { Common } from '../platform/context';
import { lockWalletFunds } from '../funds/ledger';
import { fundsNeedOf, requireFunds } from '../funds/requireFunds';
import { releaseSendClaim, takeSendClaim, untilClaimed } from './claims';
import { chainAccess } from './intent';
import { lockRow } from './lockRow';
import { nodeFailure, onNode } from './prepare';
import { claimLost } from './send';

/**
 * At most one send per withdrawal, with no transaction open across a node call: (1) a short
 * transaction takes the row's send claim (a concurrent call waits for it, then finds the
 * withdrawal broadcast); (2) the node is asked whether it already knows the hash (a process that
 * died after sending and before recording: then nothing is sent) and otherwise the stored bytes
 * are sent; (3) a short transaction records the outcome if the claim is still ours and releases
 * it. Only a claim whose lease ran out (its holder died or hung past it) lets a second caller
 * send, and then the same stored bytes: one transaction, never two.
 */
export async function broadcastWithdrawal(common: Common, id: number): Promise<WithdrawalRow> {
  const { db, config, plugins } = common;
  const { row, token } = await untilClaimed(
    () =>
      db.transaction(async (trx) => {
        // The wallet's funds lock before the row's, the order every reservation decision takes.
        const owner = (await trx('withdrawals').where({ id }).first('wallet_id')) as { wallet_id: number } | undefined;
        if (owner) await lockWalletFunds(trx, owner.wallet_id);
        const row = await lockRow(trx, id);
        if (row.status !== 'signed') return { row, token: null };
        // Never a transaction the source cannot fund handed to a node: what is already sent from
        // it, plus this one, must fit what is credited there (a deposit retracted since signing).
        await requireFunds(trx, {
          ...fundsNeedOf(row, chainAccess(config, plugins, row.chain, row.network).plugin),
          reserving: ['broadcast'],
        });
        const token = await takeSendClaim(trx, id);
        return token ? { row, token } : null;
      }),
    () => new BaseError('conflict', `withdrawal ${id} is being broadcast by another call; retry`),
  );
  if (!token) {
    if (row.status === 'prepared' || row.status === 'cancelled')
      throw new BaseError('conflict', `withdrawal ${row.id} is ${row.status}; sign it first (or send signedTransaction)`);
    return row;
  }
  /** Short transaction 3: the row still signed and the claim ours, then `move`, releasing the claim. */
  const record = (move: (trx: Knex.Transaction, cur: WithdrawalRow) => Promise<WithdrawalRow>) =>
    db.transaction(async (trx) => {
      const cur = await lockRow(trx, id);
      // The tracker reconciled it meanwhile (it found the hash on the node): already recorded.
      if (cur.status !== 'signed') return cur;
      if (cur.send_claim !== token) throw claimLost(id);
      return move(trx, cur);
    });
  try {
    const access = chainAccess(config, plugins, row.chain, row.network);
    const reader = access.readers.readerFor(access.settings);
    const unsigned = unsignedFromRow(row);
    const verdict = await onNode(row.chain, row.network, () =>
      access.verbs.verify(unsigned, row.tx_hash as string, reader, { seenInBlock: false }),
    );
    const released = { send_claim: null, send_until: null };
    if (verdict.status === 'rejected' && verdict.blockNumber === undefined) {
      // Its nonce (or inputs) went to another transaction: this one can never be published.
      return await record((trx, cur) =>
        moveWithdrawal(trx, cur, 'rejected', { ...released, reason: verdict.reason ?? 'mempool_dropped' }, { reason: verdict.reason }),
      );
    }
    if (verdict.status === 'missing') {
      try {
        await access.verbs.broadcast({ raw: row.signed_tx as string, txHash: row.tx_hash as string }, reader);
      } catch (e) {
        // "nonce too low" may mean it was mined meanwhile (or another backend has it): ask again.
        const again = await access.verbs.verify(unsigned, row.tx_hash as string, reader, { seenInBlock: false }).catch(() => null);
        if (!again || again.status === 'missing' || (again.status === 'rejected' && again.blockNumber === undefined)) {
          const f = nodeFailure(row.chain, row.network, e);
          await db.transaction(async (trx) => {
            const n = await trx('withdrawals')
              .where({ id, status: 'signed', send_claim: token })
              .update({ ...released, last_error: f.message, updated_at: trx.fn.now() });
            if (n) await addHistory(trx, id, 'broadcast_failed', { code: f.code, message: f.message });
          });
          throw f;
        }
      }
    }
    return await record((trx, cur) =>
      moveWithdrawal(
        trx,
        cur,
        'broadcast',
        { ...released, broadcast_at: trx.fn.now(), last_error: null },
        verdict.status === 'missing' ? { txHash: cur.tx_hash } : { txHash: cur.tx_hash, reconciled: 'the node already knew it' },
      ),
    );
  } finally {
    await releaseSendClaim(db, id, token).catch(() => undefined);
  }
}

/** Only a prepared withdrawal can be cancelled: once signed, its transaction may exist elsewhere. */
export async function cancelWithdrawal(common: Common, id: number): Promise<WithdrawalRow> {
  return common.db.transaction(async (trx) => {
    const row = await lockRow(trx, id);
    if (row.status === 'cancelled') return row;
    if (row.status !== 'prepared')
      throw new BaseError('conflict', `withdrawal ${row.id} is ${row.status}; only a prepared one can be cancelled`);
    return moveWithdrawal(trx, row, 'cancelled', {});
  });
}
