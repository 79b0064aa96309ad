import { BaseError, type Db } from '@walletd/core';
import type { Knex } from 'knex';
import type { ChainKey, Fence } from '../types';

/** Defined with the shared types (types.ts): the store and the follower take it without importing the lease. */
export type { Fence } from '../types';

export class LeaseLostError extends BaseError {
  constructor(readonly key: ChainKey) {
    // Retriable: the indexer that lost the lease stands by and may win it back (issue 44 §5).
    super('conflict', `the indexer lease for ${key.chain}/${key.network} was taken by another indexer`, { retriable: true });
    this.name = 'LeaseLostError';
  }
}

export interface ChainLease {
  readonly holder: string;
  /** The current epoch while held, else null. */
  epoch(): bigint | null;
  /** Takes the lease if it is free or expired; true when this holder now has it. */
  acquire(): Promise<boolean>;
  /** Pushes the expiry ahead; false when another holder has taken it (it is then no longer held). */
  renew(): Promise<boolean>;
  /** Hands the lease over at once (a graceful stop), so a standby need not wait for the expiry. */
  release(): Promise<void>;
  fence: Fence;
}

/**
 * The leadership row for one chain/network (table `indexer_leases`). A lease survives a
 * PostgreSQL restart (a session advisory lock does not) and its epoch fences writes.
 */
export function createChainLease(
  db: Db,
  key: ChainKey,
  holder: string,
  ttlMs: number,
  /** A holder known to be dead (see leaseHolder.ts): its lease is taken without waiting for the expiry. */
  holderDead: (holder: string) => boolean = () => false,
): ChainLease {
  let epoch: bigint | null = null;
  const ttl = `${Math.max(1, Math.round(ttlMs))} milliseconds`;
  const mine = () => ({ ...key, holder, epoch: (epoch ?? -1n).toString() });

  async function renewIn(q: Db | Knex.Transaction): Promise<boolean> {
    if (epoch === null) return false;
    const n = await q('indexer_leases')
      .where(mine())
      .update({ expires_at: q.raw('now() + ?::interval', [ttl]) });
    if (n === 0) epoch = null;
    return n > 0;
  }

  /** The same epoch bump as an expiry, conditional on the dead holder still being the one recorded. */
  async function takeFromDeadHolder(): Promise<{ epoch: string } | undefined> {
    const current = (await db('indexer_leases').where(key).first('holder', 'epoch')) as { holder: string; epoch: string } | undefined;
    if (!current || current.holder === holder || !holderDead(current.holder)) return undefined;
    const [row] = (await db('indexer_leases')
      .where({ ...key, holder: current.holder, epoch: current.epoch })
      .update({
        holder,
        epoch: db.raw('epoch + 1'),
        expires_at: db.raw('now() + ?::interval', [ttl]),
        acquired_at: db.fn.now(),
      })
      .returning('epoch')) as { epoch: string }[];
    return row;
  }

  return {
    holder,
    epoch: () => epoch,
    async acquire() {
      const rows = await db
        .transaction(async (trx) => {
          // The holder's write transaction locks the row; a frozen holder must not freeze us too.
          await trx.raw(`set local lock_timeout = '2s'`);
          return (
            await trx.raw(
              `insert into indexer_leases (chain, network, holder, epoch, expires_at, acquired_at)
         values (?, ?, ?, 1, now() + ?::interval, now())
         on conflict (chain, network) do update
           set holder = excluded.holder, epoch = indexer_leases.epoch + 1, expires_at = excluded.expires_at, acquired_at = now()
           where indexer_leases.expires_at < now()
         returning epoch`,
              [key.chain, key.network, holder, ttl],
            )
          ).rows as { epoch: string }[];
        })
        .catch((err: { code?: string }) => {
          if (err.code === '55P03') return []; // lock_timeout: the holder is inside a write; it still leads.
          throw err;
        });
      const row = rows[0] ?? (await takeFromDeadHolder());
      epoch = row ? BigInt(row.epoch) : null;
      return epoch !== null;
    },
    renew: () => renewIn(db),
    async release() {
      if (epoch === null) return;
      await db('indexer_leases').where(mine()).update({ expires_at: db.fn.now() });
      epoch = null;
    },
    fence: async (trx) => {
      // A holder stopped mid-transaction (SIGSTOP, a VM pause) would keep the row locked and block
      // the takeover for good: the server ends such a transaction once it idles past the lease.
      // Set in the renewal's own statement: a catching-up follower pays each round trip per write.
      if (epoch === null) throw new LeaseLostError(key);
      const renewed = await trx.raw(
        `with idle as (select set_config('idle_in_transaction_session_timeout', ?, true))
         update indexer_leases set expires_at = now() + ?::interval from idle
          where chain = ? and network = ? and holder = ? and epoch = ?`,
        [String(Math.max(1000, Math.round(ttlMs))), ttl, key.chain, key.network, holder, epoch.toString()],
      );
      if (renewed.rowCount === 0) {
        epoch = null;
        throw new LeaseLostError(key);
      }
    },
  };
}
