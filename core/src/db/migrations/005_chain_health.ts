import type { Knex } from 'knex';

/**
 * One row per followed chain/network, written by the indexer holding that chain (every round, and
 * while catching up) and read by `/readyz` in any process: the API role may run elsewhere. The
 * row's age (the database clock, so no two machines' clocks are compared) tells a dead indexer.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('chain_health', (t) => {
    t.text('chain').notNullable();
    t.text('network').notNullable();
    t.text('status').notNullable();
    t.text('reason');
    t.boolean('node_reachable').notNullable();
    t.bigInteger('head');
    t.bigInteger('indexed');
    t.text('last_error');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['chain', 'network']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('chain_health');
}
