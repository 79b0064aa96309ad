import type { Knex } from 'knex';

/**
 * Reconciliation that explains (issue 41 §5), on `reconciliation_checks`:
 * - `agreed_at`: when the node last agreed with the ledger at this scope and asset; what happened
 *   on it since (transfers, withdrawals, retractions) is what a drift can be explained by.
 * - `explanation`: what was found when the drift was last seen (causes and transactions, the
 *   shape of the event's `explanation`); null while the node agrees.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('reconciliation_checks', (t) => {
    t.timestamp('agreed_at', { useTz: true });
    t.jsonb('explanation');
  });
  await knex.schema.createTable('reconciliation_check_now', (t) => {
    t.integer('company_id').primary().references('companies.id').onDelete('CASCADE');
    t.timestamp('started_at', { useTz: true }).notNullable();
    t.timestamp('finished_at', { useTz: true });
  });
  await knex.raw("create index audit_log_deep_reorg on audit_log (created_at) where action = 'chain.deep_reorg'");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index audit_log_deep_reorg');
  await knex.schema.dropTable('reconciliation_check_now');
  await knex.schema.alterTable('reconciliation_checks', (t) => {
    t.dropColumn('explanation');
    t.dropColumn('agreed_at');
  });
}
