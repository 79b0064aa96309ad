import type { Knex } from 'knex';

/**
 * Mempool deposits (bitcoin, dogecoin) are recorded before any block holds them. When one is in
 * no block later, what it was decides the reason: never mined and gone from the mempool is
 * `mempool_dropped`; mined once and removed by a reorg is `reorg`. Rows before this migration all
 * came from blocks.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('transfers', (t) => {
    t.boolean('seen_in_block').notNullable().defaultTo(true);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('transfers', (t) => {
    t.dropColumn('seen_in_block');
  });
}
