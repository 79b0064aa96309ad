import type { Knex } from 'knex';

/**
 * Members sign in to the console (issue 30): the API's keys never reach account setup, so people
 * need their own credentials, MFA and sessions.
 * - `member_credentials`: one row per member who set a password. The TOTP secret is sealed with
 *   the master key like wallet secrets (context `member-totp:<id>`); `totp_last_step` is the last
 *   30-second step accepted, so a code seen once (shoulder, proxy log) cannot be replayed.
 * - `member_recovery_codes`: SHA-256 of each one-time code (high-entropy random strings, so a fast
 *   hash is enough); `used_at` makes each single use.
 * - `member_sessions`: server-side sessions, looked up by the SHA-256 of the cookie's token, so a
 *   database read does not yield a usable cookie; revocable at once; `stepped_up_at` is the last
 *   fresh TOTP given inside the session (sensitive actions ask for one within minutes).
 * - `member_links`: one-time invitation and password-reset links, stored as token hashes.
 * - `member_sign_in_failures`: throttling per (email, IP), keyed by a hash of both whether or not
 *   the email belongs to anyone, so a lockout reveals nothing about membership.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('member_credentials', (t) => {
    t.integer('member_id').primary().references('members.id').onDelete('CASCADE');
    t.text('password_hash');
    t.jsonb('totp_envelope');
    t.boolean('totp_enrolled').notNullable().defaultTo(false);
    t.bigInteger('totp_last_step');
    t.timestamp('password_set_at', { useTz: true });
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.createTable('member_recovery_codes', (t) => {
    t.increments('id');
    t.integer('member_id').notNullable().references('members.id').onDelete('CASCADE');
    t.text('code_hash').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('used_at', { useTz: true });
    t.unique(['member_id', 'code_hash']);
  });
  await knex.schema.createTable('member_sessions', (t) => {
    t.increments('id');
    t.text('token_hash').notNullable().unique();
    t.integer('member_id').notNullable().references('members.id').onDelete('CASCADE');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('last_seen_at', { useTz: true }).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('revoked_at', { useTz: true });
    t.text('ip');
    t.text('user_agent');
    t.timestamp('stepped_up_at', { useTz: true });
  });
  await knex.raw('CREATE INDEX member_sessions_member ON member_sessions (member_id) WHERE revoked_at IS NULL');
  await knex.schema.createTable('member_links', (t) => {
    t.increments('id');
    t.text('token_hash').notNullable().unique();
    t.integer('member_id').notNullable().references('members.id').onDelete('CASCADE');
    t.text('purpose').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('used_at', { useTz: true });
  });
  await knex.raw(`ALTER TABLE member_links ADD CONSTRAINT member_links_purpose_check CHECK (purpose IN ('invitation','password_reset'))`);
  await knex.schema.createTable('member_sign_in_failures', (t) => {
    t.text('key_hash').primary();
    t.integer('failures').notNullable();
    t.timestamp('window_started_at', { useTz: true }).notNullable();
    t.timestamp('locked_until', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('member_sign_in_failures');
  await knex.schema.dropTable('member_links');
  await knex.schema.dropTable('member_sessions');
  await knex.schema.dropTable('member_recovery_codes');
  await knex.schema.dropTable('member_credentials');
}
