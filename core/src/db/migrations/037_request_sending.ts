import type { Knex } from 'knex';

/**
 * Sending what was approved (issue 42 §6), on `withdrawal_requests`:
 * - `on_approval`: what the quorum does, fixed when it is reached (`send`: signed and broadcast at
 *   once; `wait_for_send`: a person's Send in the console); null while pending.
 * - `funds_short_since`, `expires_at`: when preparing the approved withdrawal was first refused
 *   for want of funds, and that time plus `approvals.fundsShortExpiryMs`: past it the request is
 *   `expired` instead of paying whenever money arrives (stored, so every reader agrees on it).
 * And on `companies`, `on_approval`: the company's default for requests no policy names one for
 * (null: the deployment's `approvals.onApproval`).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('withdrawal_requests', (t) => {
    t.text('on_approval');
    t.timestamp('funds_short_since', { useTz: true });
    t.timestamp('expires_at', { useTz: true });
  });
  await knex.schema.alterTable('companies', (t) => {
    t.text('on_approval');
  });
  await knex.raw("ALTER TABLE companies ADD CONSTRAINT companies_on_approval_known CHECK (on_approval IN ('send', 'wait_for_send'))");
  await knex.raw(
    "ALTER TABLE withdrawal_requests ADD CONSTRAINT withdrawal_requests_on_approval_known CHECK (on_approval IN ('send', 'wait_for_send'))",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw("UPDATE withdrawal_requests SET status = 'approved' WHERE status = 'expired'");
  await knex.schema.alterTable('companies', (t) => {
    t.dropColumn('on_approval');
  });
  await knex.schema.alterTable('withdrawal_requests', (t) => {
    t.dropColumn('expires_at');
    t.dropColumn('funds_short_since');
    t.dropColumn('on_approval');
  });
}
