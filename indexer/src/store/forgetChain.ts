import type { Db } from '@walletd/core';
import type { ChainKey } from './transferStore';

export interface ForgetResult {
  /** Pending deposits of the forgotten chain: detached, then rejected (`reorg`) by the next round. */
  detached: number;
  /** Confirmed deposits stay as they are: they were credited; reconcile them by hand if the chain is gone. */
  confirmed: number;
}

/**
 * The operator's way out of `genesis_changed` when the node was replaced on purpose (a devnet
 * reset, a testnet relaunch): the cursor, the recent blocks, the recorded identity and the stop
 * are dropped, so the chain is indexed afresh from `startBlock`. Transfers and events stay (they
 * are history); pending ones lose their block, and the next round rejects those that are not on
 * the new chain, each with its `deposit.rejected`.
 */
export async function forgetChain(db: Db, key: ChainKey): Promise<ForgetResult> {
  return db.transaction(async (trx) => {
    const detached = await trx('transfers')
      .where({ ...key, status: 'pending' })
      .whereNotNull('block_number')
      .update({ block_number: null, block_hash: null, updated_at: trx.fn.now() });
    const [{ n }] = (await trx('transfers')
      .where({ ...key, status: 'confirmed' })
      .count('* as n')) as [{ n: number | string }];
    await trx('recent_blocks').where(key).delete();
    await trx('chain_cursors').where(key).delete();
    await trx('followed_chains').where(key).delete();
    return { detached, confirmed: Number(n) };
  });
}
