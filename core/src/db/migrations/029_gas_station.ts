import type { Knex } from 'knex';

/**
 * The gas station (issue 33, docs/guide/sweeps-and-gas.md): one address per wallet, derived from the wallet's
 * key at the next deposit index (so it never shares a key with a deposit address) and stored with
 * kind `gas_station`: the indexer watches it, the API never hands it out as a deposit address. It
 * pays `gas_topup` withdrawals: exactly the fee a token sweep of a deposit address needs, sent to
 * that address before the sweep. A top-up names its sweep rule, like a sweep.
 * `sweep_rules.gas_daily_cap`: what the rule's top-ups (amounts and fees) may take from the
 * station in 24 hours, native base units; null: no cap but the station's balance.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table addresses drop constraint addresses_kind');
  await knex.raw(
    `alter table addresses add constraint addresses_kind check (kind in ('deposit', 'change', 'account', 'token_account', 'gas_station'))`,
  );
  await knex.raw(`create unique index addresses_one_gas_station on addresses (wallet_id) where kind = 'gas_station'`);
  await knex.raw('alter table withdrawals drop constraint withdrawals_kind');
  await knex.raw(`alter table withdrawals add constraint withdrawals_kind check (
    (kind = 'payout' and sweep_rule_id is null) or (kind in ('sweep', 'gas_topup') and sweep_rule_id is not null))`);
  await knex.schema.alterTable('sweep_rules', (t) => {
    t.specificType('gas_daily_cap', 'numeric(78,0)');
  });
  await knex.raw('alter table sweep_rules add constraint sweep_rules_gas_daily_cap check (gas_daily_cap is null or gas_daily_cap > 0)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table sweep_rules drop constraint sweep_rules_gas_daily_cap');
  await knex.schema.alterTable('sweep_rules', (t) => {
    t.dropColumn('gas_daily_cap');
  });
  await knex('withdrawals').where({ kind: 'gas_topup' }).update({ kind: 'sweep' });
  await knex.raw('alter table withdrawals drop constraint withdrawals_kind');
  await knex.raw(`alter table withdrawals add constraint withdrawals_kind check (
    (kind = 'payout' and sweep_rule_id is null) or (kind = 'sweep' and sweep_rule_id is not null))`);
  await knex.raw('drop index addresses_one_gas_station');
  await knex('addresses').where({ kind: 'gas_station' }).update({ kind: 'deposit' });
  await knex.raw('alter table addresses drop constraint addresses_kind');
  await knex.raw(`alter table addresses add constraint addresses_kind check (kind in ('deposit', 'change', 'account', 'token_account'))`);
}
