import type { Knex } from 'knex';

/**
 * N approvals mean N people (issue 42 §2, §3):
 * - `members.approver_counts_from`: a member invited (or promoted) into a role that may approve
 *   in the console has their votes counted only from this time on (the cooling-off in force when
 *   they got the role); null counts at once (members before this migration, an operator's
 *   bootstrap owner).
 * - `members.approver_confirmed_at` / `_by`: another owner confirmed them with a step-up, which
 *   ends the cooling-off early.
 * - `withdrawal_requests.reopened`: how many times an approved request went back to pending
 *   because a voter stopped counting; it names the next prepared withdrawal's idempotency key,
 *   since the cancelled one keeps the earlier key.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('members', (t) => {
    t.timestamp('approver_counts_from', { useTz: true });
    t.timestamp('approver_confirmed_at', { useTz: true });
    t.integer('approver_confirmed_by').references('members.id');
  });
  await knex.schema.alterTable('withdrawal_requests', (t) => {
    t.integer('reopened').notNullable().defaultTo(0);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('withdrawal_requests', (t) => t.dropColumn('reopened'));
  await knex.schema.alterTable('members', (t) => {
    t.dropColumn('approver_confirmed_by');
    t.dropColumn('approver_confirmed_at');
    t.dropColumn('approver_counts_from');
  });
}
