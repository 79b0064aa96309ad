import type { Knex } from 'knex';

/**
 * Issue 45 §4: an address whose key lives in AWS KMS (made with `keyHeldIn: "kms"`) names the KMS
 * key (its id, ARN or alias as the operator gave it; no secret: KMS holds the key, IAM guards it).
 * null: token-held (`key_label`) or derived from the wallet's mnemonic, as before.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('addresses', (t) => {
    t.text('kms_key_id');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('addresses', (t) => {
    t.dropColumn('kms_key_id');
  });
}
