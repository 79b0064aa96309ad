import type { Knex } from 'knex';

/**
 * Change addresses (issue 11, defect 1): a wallet's internal change branch (`…/1/i` on UTXO
 * chains) is stored beside its deposit addresses, so the indexer watches it as the wallet's own
 * and `?onchain=true` counts it, while the API never hands it out. Indexes are per branch: deposit
 * index 0 and change index 0 are different keys.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('addresses', (t) => {
    t.text('kind').notNullable().defaultTo('deposit');
    t.dropUnique(['wallet_id', 'derivation_index']);
    t.unique(['wallet_id', 'kind', 'derivation_index']);
  });
  await knex.raw(`alter table addresses add constraint addresses_kind check (kind in ('deposit', 'change'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex('addresses').where({ kind: 'change' }).delete();
  await knex.raw('alter table addresses drop constraint addresses_kind');
  await knex.schema.alterTable('addresses', (t) => {
    t.dropUnique(['wallet_id', 'kind', 'derivation_index']);
    t.unique(['wallet_id', 'derivation_index']);
    t.dropColumn('kind');
  });
}
