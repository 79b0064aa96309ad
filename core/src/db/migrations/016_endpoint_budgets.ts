import type { Knex } from 'knex';

/**
 * Per-endpoint budgets for the dispatcher (issue 29: one receiver that accepted connections and
 * never answered held every slot of every dispatcher, and the other companies' deliveries waited
 * 45 s behind it).
 * - `webhook_deliveries.leased`: the row is claimed by a dispatcher; with `next_attempt_at` in the
 *   future (the lease end) it is an attempt in flight. A claim counts these per webhook to keep
 *   each webhook under `webhooks.maxInFlightPerWebhook` across every dispatcher process.
 * - The claim walks each webhook's due rows on their own index instead of one queue order, so a
 *   webhook with a large backlog at the head cannot hide the others (`due_order` is replaced).
 * - The circuit breaker's state lives on the webhook: consecutive failed attempts, how many times
 *   it was backed off in a row, and until when.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE webhook_deliveries ADD COLUMN leased boolean NOT NULL DEFAULT false`);
  await knex.raw(
    `CREATE INDEX webhook_deliveries_due_by_webhook ON webhook_deliveries (webhook_id, next_attempt_at, id) WHERE status = 'pending'`,
  );
  await knex.raw(
    `CREATE INDEX webhook_deliveries_in_flight ON webhook_deliveries (webhook_id, next_attempt_at) WHERE status = 'pending' AND leased`,
  );
  await knex.raw('DROP INDEX IF EXISTS webhook_deliveries_due_order');
  await knex.raw(`ALTER TABLE webhooks
    ADD COLUMN consecutive_failures integer NOT NULL DEFAULT 0,
    ADD COLUMN backoffs integer NOT NULL DEFAULT 0,
    ADD COLUMN backed_off_at timestamptz,
    ADD COLUMN backed_off_until timestamptz`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE webhooks
    DROP COLUMN consecutive_failures, DROP COLUMN backoffs, DROP COLUMN backed_off_at, DROP COLUMN backed_off_until`);
  await knex.raw(`CREATE INDEX webhook_deliveries_due_order ON webhook_deliveries (next_attempt_at, id) WHERE status = 'pending'`);
  await knex.raw('DROP INDEX IF EXISTS webhook_deliveries_in_flight');
  await knex.raw('DROP INDEX IF EXISTS webhook_deliveries_due_by_webhook');
  await knex.raw('ALTER TABLE webhook_deliveries DROP COLUMN leased');
}
