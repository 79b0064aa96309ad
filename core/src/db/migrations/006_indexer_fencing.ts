import type { Knex } from 'knex';

/**
 * Indexer fencing and chain identity.
 *
 * `indexer_leases`: one row per chain/network naming the indexer process that follows it. A
 * session advisory lock vanishes silently when PostgreSQL restarts (a standby then takes it while
 * the first holder never notices), so leadership is a row instead: taken by a conditional update
 * once it has expired, renewed by its holder, and every write transaction of the follower renews
 * it by (holder, epoch). A holder whose epoch was bumped by a standby finds no row to renew and
 * its transaction aborts, so two indexers never both write a chain.
 *
 * `followed_chains`: the genesis hash and chain id seen when the chain was first indexed (a node
 * swapped for another chain, or a devnet reset, must not be indexed on top of the old one), and
 * whether the indexer stopped the chain (`halted_*`), which readiness reports.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('indexer_leases', (t) => {
    t.text('chain').notNullable();
    t.text('network').notNullable();
    t.text('holder').notNullable();
    t.bigInteger('epoch').notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('acquired_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['chain', 'network']);
  });
  await knex.schema.createTable('followed_chains', (t) => {
    t.text('chain').notNullable();
    t.text('network').notNullable();
    t.text('genesis_hash').notNullable();
    t.text('chain_id');
    t.timestamp('recorded_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.text('halted_code');
    t.text('halted_message');
    t.timestamp('halted_at', { useTz: true });
    t.primary(['chain', 'network']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('followed_chains');
  await knex.schema.dropTable('indexer_leases');
}
