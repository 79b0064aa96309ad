import type { Knex } from 'knex';

/**
 * Reorgs deeper than the confirmation threshold (issue 41), bounded by what they touch, not by history:
 * - confirmed deposits a reorg took out of their block, which the indexer looks for every round
 *   until they are mined again or retracted: a partial index so that round reads only them, never
 *   the rejected rows that have no block either;
 * - confirmed withdrawals above the common ancestor, stepped back to `broadcast` by the rewind: by
 *   block within the chain, so a rewind reads the few blocks above the ancestor.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `CREATE INDEX transfers_detached_confirmed ON transfers (chain, network) WHERE status = 'confirmed' AND block_number IS NULL`,
  );
  await knex.raw(`CREATE INDEX withdrawals_confirmed_by_block ON withdrawals (chain, network, block_number) WHERE status = 'confirmed'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS withdrawals_confirmed_by_block');
  await knex.raw('DROP INDEX IF EXISTS transfers_detached_confirmed');
}
