import type { Knex } from 'knex';

/**
 * Issue 43 §6: the PostgreSQL session (backend pid) of the dispatcher process that holds a
 * delivery's lease: its LISTEN connection, open as long as the process lives. A lease whose
 * session is gone from `pg_stat_activity` is of a dead process and is released at once instead of
 * at its end (60 s). Null when the dispatcher had no such session (the lease then just ends).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE webhook_deliveries ADD COLUMN leased_by integer');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE webhook_deliveries DROP COLUMN leased_by');
}
