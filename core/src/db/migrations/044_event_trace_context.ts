import type { Knex } from 'knex';

/**
 * Issue 48 §4: the W3C `traceparent` of the span that recorded the event (null unless traces are
 * on), so each delivery attempt's span continues that trace: one deposit is followed from its
 * block to its receiver. Nullable without a default: on the partitioned table a catalog change only.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE events ADD COLUMN trace_context text');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE events DROP COLUMN trace_context');
}
