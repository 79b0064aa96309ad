import type { Knex } from 'knex';

/**
 * Where a withdrawal-request vote came from (issue 30): votes are cast by signed-in members in the
 * console, and each keeps the address it came from and the session that cast it, beside the
 * member and time it already had. Older votes (cast with the admin CLI) have neither.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE withdrawal_approvals
    ADD COLUMN ip text,
    ADD COLUMN session_id integer REFERENCES member_sessions(id) ON DELETE SET NULL`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE withdrawal_approvals DROP COLUMN ip, DROP COLUMN session_id');
}
