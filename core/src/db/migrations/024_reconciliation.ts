import type { Knex } from 'knex';

/**
 * Reconciliation (issue 33): the indexer compares each wallet's indexed balance with the node's.
 * - `reconciliation_checks`: the last comparison per wallet, scope and asset, where anything is
 *   held or a drift is open. `address` is the account compared ('' for a pooled wallet: UTXO coins,
 *   an account-tag wallet's one account). `drift` is the signed amount outside the band the known
 *   causes explain (0 inside it); `drift_checks` counts consecutive checks that saw that same drift
 *   (a drift is announced only when seen twice: a block the indexer has not reached yet is not one);
 *   `reported_drift` is the drift the last `reconciliation.drift` event announced, null when none
 *   is open, so a drift is announced once until it changes or clears.
 * - `reconciliation_runs`: per chain, where the next run goes on (`cursor`: the last address or
 *   wallet id read) and how the last one ended.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('reconciliation_checks', (t) => {
    t.integer('wallet_id').notNullable().references('wallets.id').onDelete('CASCADE');
    t.text('address').notNullable();
    t.text('asset_key').notNullable();
    t.integer('company_id').notNullable();
    t.text('chain').notNullable();
    t.text('network').notNullable();
    t.specificType('indexed', 'numeric(78,0)').notNullable();
    t.specificType('pending', 'numeric(78,0)').notNullable();
    t.specificType('in_flight', 'numeric(78,0)').notNullable();
    t.specificType('incoming_in_flight', 'numeric(78,0)').notNullable();
    t.specificType('onchain', 'numeric(78,0)').notNullable();
    t.specificType('drift', 'numeric(78,0)').notNullable();
    t.integer('drift_checks').notNullable().defaultTo(0);
    t.specificType('reported_drift', 'numeric(78,0)');
    t.timestamp('drift_since', { useTz: true });
    t.timestamp('checked_at', { useTz: true }).notNullable();
    t.primary(['wallet_id', 'address', 'asset_key']);
  });
  // Open drifts per chain: the gauge at every scrape and the console's overview.
  await knex.raw('create index reconciliation_checks_open on reconciliation_checks (chain, network) where reported_drift is not null');
  await knex.schema.createTable('reconciliation_runs', (t) => {
    t.text('chain').notNullable();
    t.text('network').notNullable();
    t.integer('cursor').notNullable().defaultTo(0);
    t.timestamp('started_at', { useTz: true });
    t.timestamp('finished_at', { useTz: true });
    /** When the last pass over every address of the chain ended. */
    t.timestamp('pass_finished_at', { useTz: true });
    t.integer('addresses_read').notNullable().defaultTo(0);
    t.text('last_error');
    t.primary(['chain', 'network']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('reconciliation_runs');
  await knex.schema.dropTable('reconciliation_checks');
}
