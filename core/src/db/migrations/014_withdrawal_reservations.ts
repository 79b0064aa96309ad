import type { Knex } from 'knex';

/**
 * Funds reservations (issue 28): a withdrawal holds its amount and fee cap from `prepared` until it
 * is confirmed, rejected or cancelled, computed from the withdrawal rows themselves (no second
 * ledger to drift). Two facts the ledger needs are recorded at prepare, as part of the intent:
 * - `internal_amount`: what the withdrawal pays to addresses of its own wallet. The indexer records
 *   no deposit for those outputs (an own movement), so without it the wallet's credit would drop by
 *   money that never left;
 * - `to_address_id`: on account chains, the wallet address that single output pays, so the
 *   receiving address is credited when the withdrawal confirms (the source's balance and the
 *   destination's are kept apart: each account pays only with what it holds).
 * The partial index serves the reservation sum, taken under the wallet's lock on every prepare,
 * sign and broadcast.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('withdrawals', (t) => {
    t.specificType('internal_amount', 'numeric(78,0)').notNullable().defaultTo(0);
    t.integer('to_address_id').references('addresses.id');
  });
  await knex.raw(
    `CREATE INDEX withdrawals_reserving ON withdrawals (wallet_id, from_address) WHERE status IN ('prepared', 'signed', 'broadcast')`,
  );
  await knex.raw(
    "CREATE INDEX withdrawals_settled_by_wallet ON withdrawals (wallet_id, asset_key) WHERE status IN ('confirmed', 'rejected')",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS withdrawals_settled_by_wallet');
  await knex.raw('DROP INDEX IF EXISTS withdrawals_reserving');
  await knex.schema.alterTable('withdrawals', (t) => {
    t.dropColumns('internal_amount', 'to_address_id');
  });
}
