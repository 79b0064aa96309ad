import type { Knex } from 'knex';

/**
 * Passkeys (WebAuthn) as a member's second factor (issue 42 §4):
 * - `member_passkeys`: one row per credential a member enrolled. `counter` is the authenticator's
 *   signature counter, checked and moved forward on every use (a lower or equal one is a clone).
 * - `webauthn_challenges`: each ceremony's challenge, single-use (`used_at`) and short-lived,
 *   bound to the member, to the session for enroll and step-up, and to its purpose.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('member_passkeys', (t) => {
    t.increments('id').primary();
    t.integer('member_id').notNullable().references('members.id').onDelete('CASCADE');
    t.text('credential_id').notNullable().unique();
    t.binary('public_key').notNullable();
    t.bigInteger('counter').notNullable().defaultTo(0);
    t.jsonb('transports').notNullable().defaultTo('[]');
    t.text('name').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('last_used_at', { useTz: true });
    t.index(['member_id']);
  });
  await knex.schema.createTable('webauthn_challenges', (t) => {
    t.bigIncrements('id').primary();
    t.integer('member_id').notNullable().references('members.id').onDelete('CASCADE');
    t.integer('session_id').references('member_sessions.id').onDelete('CASCADE');
    t.text('purpose').notNullable();
    t.text('challenge').notNullable().unique();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('used_at', { useTz: true });
    t.index(['expires_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('webauthn_challenges');
  await knex.schema.dropTable('member_passkeys');
}
