import type { Knex } from 'knex';

/**
 * UTXO consolidation sweeps (issue 33, docs/guide/sweeps-and-gas.md): `sweep_rules.fee_rate`, the rule's fee
 * rate in base units per virtual byte (sat/vB, koinu/vB); null: the node's estimate, capped by the
 * plugin. Only a rule on a UTXO wallet carries one (the API refuses it elsewhere).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('sweep_rules', (t) => {
    t.specificType('fee_rate', 'numeric(78,0)');
  });
  await knex.raw('alter table sweep_rules add constraint sweep_rules_fee_rate check (fee_rate is null or fee_rate > 0)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table sweep_rules drop constraint sweep_rules_fee_rate');
  await knex.schema.alterTable('sweep_rules', (t) => {
    t.dropColumn('fee_rate');
  });
}
