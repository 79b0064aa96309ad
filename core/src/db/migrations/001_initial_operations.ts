import type { Knex } from 'knex';

/**
 * The second half of migration 001's `up` (001_initial.ts), moved here verbatim so that no file is
 * over 300 lines: the audit log, the indexer's cursors and recent blocks, and the rate limiter's
 * hits. Not a migration of its own (index.ts lists 001_initial only).
 */
export async function createOperationalTables(knex: Knex): Promise<void> {
  await knex.schema.createTable('audit_log', (t) => {
    t.bigIncrements('id');
    t.integer('company_id').references('companies.id').onDelete('CASCADE');
    t.text('actor_type').notNullable();
    t.text('actor_id');
    t.text('action').notNullable();
    t.text('target_type');
    t.text('target_id');
    t.text('ip');
    t.jsonb('details');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['company_id', 'created_at']);
  });

  await knex.schema.createTable('chain_cursors', (t) => {
    t.text('chain').notNullable();
    t.text('network').notNullable();
    t.bigInteger('height').notNullable();
    t.text('hash');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['chain', 'network']);
  });

  await knex.schema.createTable('recent_blocks', (t) => {
    t.text('chain').notNullable();
    t.text('network').notNullable();
    t.bigInteger('height').notNullable();
    t.text('hash').notNullable();
    t.text('parent_hash').notNullable();
    t.primary(['chain', 'network', 'height']);
  });

  await knex.schema.createTable('rate_limit_hits', (t) => {
    t.text('key').notNullable();
    t.timestamp('window_start', { useTz: true }).notNullable();
    t.integer('hits').notNullable();
    t.primary(['key', 'window_start']);
  });
  // Counters need no crash safety; unlogged tables skip the WAL on the per-request hot path.
  await knex.raw('ALTER TABLE rate_limit_hits SET UNLOGGED');
}
