import { randomUUID } from 'node:crypto';
import type { Db } from '@walletd/core';
import type { Knex } from 'knex';

/**
 * Claims with a lease (migration 007): what a database transaction used to hold across node
 * calls. A claim is taken in a short transaction, the node is called with no transaction open,
 * and the closing transaction checks the token before it records anything. The lease outlasts a
 * node call with its retries (ReaderOptions: timeout × attempts); a holder that died leaves a
 * claim the next caller takes once the lease ran out.
 */
export const CLAIM_LEASE_SECONDS = 120;
/** How long a caller waits for another caller's claim before answering 409. */
const WAIT_MS = (CLAIM_LEASE_SECONDS + 5) * 1000;

const lease = (db: Knex) => db.raw(`now() + interval '${CLAIM_LEASE_SECONDS} seconds'`);
const free = (db: Knex, column: string) => (q: Knex.QueryBuilder) => q.whereNull(column).orWhere(column, '<', db.raw('now()'));

/** The wallet's signing claim (one signer per wallet: the next nonce or the free coins), or null when another caller holds it. */
export async function takeSigningClaim(trx: Knex.Transaction, walletId: number): Promise<string | null> {
  const token = randomUUID();
  const n = await trx('wallets')
    .where({ id: walletId })
    .andWhere(free(trx, 'signing_until'))
    .update({ signing_claim: token, signing_until: lease(trx) });
  return n ? token : null;
}

/** True when `token` still holds the wallet's signing claim; locks the wallet row until the caller commits. */
export async function holdsSigningClaim(trx: Knex.Transaction, walletId: number, token: string): Promise<boolean> {
  const row = await trx('wallets').where({ id: walletId }).forUpdate().first('signing_claim');
  return row?.signing_claim === token;
}

export async function releaseSigningClaim(db: Db | Knex.Transaction, walletId: number, token: string): Promise<void> {
  await db('wallets').where({ id: walletId, signing_claim: token }).update({ signing_claim: null, signing_until: null });
}

/** The withdrawal's send claim (one broadcast at a time), taken under the caller's row lock. */
export async function takeSendClaim(trx: Knex.Transaction, withdrawalId: number): Promise<string | null> {
  const token = randomUUID();
  const n = await trx('withdrawals')
    .where({ id: withdrawalId })
    .andWhere(free(trx, 'send_until'))
    .update({ send_claim: token, send_until: lease(trx) });
  return n ? token : null;
}

export async function releaseSendClaim(db: Db | Knex.Transaction, withdrawalId: number, token: string): Promise<void> {
  await db('withdrawals').where({ id: withdrawalId, send_claim: token }).update({ send_claim: null, send_until: null });
}

/**
 * Repeats `attempt` (a short transaction that either settles the call or takes a claim) until it
 * answers, waiting out another caller's claim; never inside a transaction.
 */
export async function untilClaimed<T>(attempt: () => Promise<T | null>, busy: () => Error): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (let pause = 25; ; pause = Math.min(pause * 2, 500)) {
    const got = await attempt();
    if (got !== null) return got;
    if (Date.now() > deadline) throw busy();
    await new Promise((r) => setTimeout(r, pause));
  }
}
