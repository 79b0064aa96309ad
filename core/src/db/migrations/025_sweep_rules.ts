import type { Knex } from 'knex';

/**
 * Sweep rules (issue 33, docs/guide/sweeps-and-gas.md): per wallet and asset, move what each deposit address
 * holds above a threshold to one destination. A sweep is an ordinary withdrawal (or withdrawal
 * request, when a policy wants approvals) with `kind` 'sweep' and the rule named; every other
 * withdrawal is a 'payout'. The check ties the two columns so no row is a sweep without its rule.
 * `last_window`: the schedule window the rule last ran in (the idempotency keys carry it).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('sweep_rules', (t) => {
    t.increments('id');
    t.integer('company_id').notNullable().references('companies.id');
    t.integer('wallet_id').notNullable().references('wallets.id').onDelete('CASCADE');
    t.text('asset_key').notNullable();
    t.text('destination').notNullable();
    t.specificType('threshold', 'numeric(78,0)').notNullable();
    t.specificType('min_left', 'numeric(78,0)').notNullable().defaultTo(0);
    t.text('trigger').notNullable();
    t.integer('interval_seconds');
    t.boolean('enabled').notNullable().defaultTo(true);
    t.integer('created_by_key').references('api_keys.id');
    t.bigInteger('last_window');
    t.timestamp('last_run_at', { useTz: true });
    t.text('last_error');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('deleted_at', { useTz: true });
    t.index(['wallet_id']);
  });
  await knex.raw(`alter table sweep_rules add constraint sweep_rules_trigger check (
    (trigger = 'schedule' and interval_seconds >= 60) or (trigger = 'deposit' and interval_seconds is null))`);
  await knex.raw('alter table sweep_rules add constraint sweep_rules_amounts check (threshold > 0 and min_left >= 0)');
  for (const table of ['withdrawals', 'withdrawal_requests']) {
    await knex.schema.alterTable(table, (t) => {
      t.text('kind').notNullable().defaultTo('payout');
      t.integer('sweep_rule_id').references('sweep_rules.id');
    });
    await knex.raw(`alter table ${table} add constraint ${table}_kind check (
      (kind = 'payout' and sweep_rule_id is null) or (kind = 'sweep' and sweep_rule_id is not null))`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['withdrawal_requests', 'withdrawals']) {
    await knex.raw(`alter table ${table} drop constraint ${table}_kind`);
    await knex.schema.alterTable(table, (t) => {
      t.dropColumn('sweep_rule_id');
      t.dropColumn('kind');
    });
  }
  await knex.schema.dropTable('sweep_rules');
}
