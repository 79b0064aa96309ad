import type { Knex } from 'knex';

/**
 * Claims with a lease, so no node call runs inside a database transaction (issue 11):
 * - `wallets.signing_claim` / `signing_until`: one signer per wallet at a time (the next nonce on
 *   EVM, the free coins on UTXO chains are decided under it), held across the node build and the
 *   signature, released in the transaction that stores the signed bytes;
 * - `withdrawals.send_claim` / `send_until`: one broadcast per withdrawal at a time, held across
 *   verify and send, released in the transaction that records the outcome.
 * A claim whose lease ran out (its holder died) may be taken by another caller; the holder's
 * closing transaction checks its token, so a holder that lost the claim records nothing.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('wallets', (t) => {
    t.uuid('signing_claim');
    t.timestamp('signing_until', { useTz: true });
  });
  await knex.schema.alterTable('withdrawals', (t) => {
    t.uuid('send_claim');
    t.timestamp('send_until', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('withdrawals', (t) => {
    t.dropColumn('send_claim');
    t.dropColumn('send_until');
  });
  await knex.schema.alterTable('wallets', (t) => {
    t.dropColumn('signing_claim');
    t.dropColumn('signing_until');
  });
}
