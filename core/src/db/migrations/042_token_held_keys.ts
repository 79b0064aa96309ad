import type { Knex } from 'knex';

/**
 * Issue 45 §3: an address whose key lives in the master key's PKCS#11 token (a gas station made
 * with `masterKey.gasStationsInToken`) names the key pair's label there; null: its key is derived
 * from the wallet's sealed mnemonic at `derivation_index`, as before.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('addresses', (t) => {
    t.text('key_label');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('addresses', (t) => {
    t.dropColumn('key_label');
  });
}
