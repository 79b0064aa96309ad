import type { Knex } from 'knex';

/**
 * At most one pending delivery per (webhook, event): a redeliver or replay while one is waiting
 * returns or skips it instead of queueing another, and the index makes that hold under
 * concurrent calls too. Duplicates queued before this migration keep the oldest pending row; the
 * others end `failed` with a note (their event is still delivered by the one kept).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `update webhook_deliveries d
        set status = 'failed', next_attempt_at = null, updated_at = now(),
            last_error = 'superseded: another delivery of this event to this webhook was already pending'
      where d.status = 'pending'
        and exists (select 1 from webhook_deliveries o
                     where o.webhook_id = d.webhook_id and o.event_id = d.event_id and o.status = 'pending' and o.id < d.id)`,
  );
  await knex.raw(
    `CREATE UNIQUE INDEX webhook_deliveries_one_pending ON webhook_deliveries (webhook_id, event_id) WHERE status = 'pending'`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS webhook_deliveries_one_pending');
}
