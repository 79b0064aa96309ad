import type { Knex } from 'knex';

/**
 * Retention of the working tables (issue 32).
 *
 * `webhook_deliveries`: every delivered row leaves dead entries in the pending rows' partial
 * indexes (`due_by_webhook`, `in_flight`, `one_pending`), which the dispatcher's claim walks until a
 * vacuum removes them. Autovacuum's default trigger is 50 + 20% of the table's rows dead: 400k rows
 * at 1M transfers (2M deliveries), and the claim that first meets them took a second (55 ms at 100k;
 * bench/README.md, "Dispatcher claim between vacuums"). A fixed trigger keeps that bound the same at
 * any size. Vacuums come more often but each is small: the heap pages it visits are the recently
 * written ones (the rest are all-visible), and while the dead rows sit on under 2% of the pages
 * PostgreSQL skips the index pass (the claim's own scans mark the remaining entries dead).
 * No fillfactor: the claim and the record both change indexed columns (`next_attempt_at`, `leased`,
 * `status`), so neither update can be HOT (tried with a lease column outside every index: bench/README.md).
 *
 * `member_sign_in_failures`: one row per failed (email, IP) pair, a working table that grew with
 * every failed sign-in; the sign-in path now deletes the rows whose window ended (signInThrottle.ts),
 * found on this index.
 */
export const DELIVERY_AUTOVACUUM_THRESHOLD = 5000;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `ALTER TABLE webhook_deliveries SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = ${DELIVERY_AUTOVACUUM_THRESHOLD})`,
  );
  await knex.raw('CREATE INDEX member_sign_in_failures_window ON member_sign_in_failures (window_started_at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS member_sign_in_failures_window');
  await knex.raw('ALTER TABLE webhook_deliveries RESET (autovacuum_vacuum_scale_factor, autovacuum_vacuum_threshold)');
}
