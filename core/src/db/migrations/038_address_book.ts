import type { Knex } from 'knex';

/**
 * The destination address book (issue 42 §7): named destinations of a company, for one wallet
 * (`wallet_id`) or all of them (null), on one chain and network. An entry can receive from
 * `usable_from` on (its creation plus `addressBook.coolingOffMs`); an owner's request and a second
 * member's approval may bring that forward (`shorten_*`, `shortened_*`). Removed entries stay, for
 * the audit trail, with `removed_at`; one live entry per scope and match form.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('address_book_entries', (t) => {
    t.increments('id').primary();
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.integer('wallet_id').references('wallets.id').onDelete('CASCADE');
    t.text('chain').notNullable();
    t.text('network').notNullable();
    t.text('name').notNullable();
    t.text('address').notNullable();
    t.text('match_key').notNullable();
    t.integer('created_by_member');
    t.integer('created_by_key');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('usable_from', { useTz: true }).notNullable();
    t.integer('shorten_requested_by');
    t.timestamp('shorten_requested_at', { useTz: true });
    t.integer('shortened_by');
    t.timestamp('shortened_at', { useTz: true });
    t.timestamp('removed_at', { useTz: true });
  });
  await knex.raw(
    'CREATE UNIQUE INDEX address_book_live_entry ON address_book_entries (company_id, coalesce(wallet_id, 0), chain, network, match_key) WHERE removed_at IS NULL',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('address_book_entries');
}
