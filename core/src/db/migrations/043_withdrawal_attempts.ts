import type { Knex } from 'knex';

/**
 * Issue 46 §4: one withdrawal, several transactions. Every replacement a withdrawal broadcast on
 * the same nonce (a speed-up, an on-chain cancel) is kept here with its signed bytes and fees;
 * the original is copied here (kind `original`) at the first replacement, and stays on the row (its
 * `signed_tx` never changes). The tracker verifies
 * them all: whichever lands settles the withdrawal, the others are never reported as paid.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('withdrawal_attempts', (t) => {
    t.increments('id');
    t.integer('withdrawal_id').notNullable().references('withdrawals.id').onDelete('CASCADE');
    t.text('kind').notNullable();
    t.text('tx_hash').notNullable();
    t.text('signed_tx').notNullable();
    t.jsonb('unsigned_tx').notNullable();
    t.specificType('fee_cap', 'numeric(78,0)').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['withdrawal_id']);
  });
  await knex.raw(
    `ALTER TABLE withdrawal_attempts ADD CONSTRAINT withdrawal_attempts_kind CHECK (kind IN ('original', 'speed_up', 'cancel'))`,
  );
  await knex.raw('CREATE UNIQUE INDEX withdrawal_attempts_tx_hash ON withdrawal_attempts (lower(tx_hash))');
  // A rewind finds the on-chain cancels of the blocks it takes back as it finds the confirmed
  // withdrawals (migration 032), by block, not by a scan of every withdrawal (queryPlans.test).
  await knex.raw(
    `CREATE INDEX withdrawals_cancelled_by_block ON withdrawals (chain, network, block_number) WHERE status = 'rejected' AND reason = 'cancelled_onchain'`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS withdrawals_cancelled_by_block');
  await knex.schema.dropTable('withdrawal_attempts');
}
