import type { Knex } from 'knex';

/**
 * Confirmed deposits a reorg deeper than the threshold took out of their block (issue 41): the
 * indexer looks for them every round until they are mined again or retracted. A partial index so
 * that round reads only them, never the history of rejected rows that also have no block.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `CREATE INDEX transfers_detached_confirmed ON transfers (chain, network) WHERE status = 'confirmed' AND block_number IS NULL`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS transfers_detached_confirmed');
}
