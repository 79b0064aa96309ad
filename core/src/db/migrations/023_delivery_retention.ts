import type { Knex } from 'knex';

/**
 * Delivery attempt rows in a final state (delivered, failed) are pruned once they have been final
 * for `webhooks.deliveryRetentionDays` (issue 32: 604 bytes a row, two rows per transfer, kept
 * forever). The pruner takes the oldest final rows in small batches: this index hands it exactly
 * those, oldest first, without reading the pending rows or the recent ones. Partial: pending rows
 * (the dispatcher's hot set) are not in it, so the claim's inserts and updates of pending rows do
 * not maintain it; a row enters it once, when its last attempt is recorded. Final rows are never
 * updated again (a redelivery inserts a new row), so `updated_at` is when the row became final.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `CREATE INDEX webhook_deliveries_final_by_age ON webhook_deliveries (updated_at, id) WHERE status IN ('delivered', 'failed')`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS webhook_deliveries_final_by_age');
}
