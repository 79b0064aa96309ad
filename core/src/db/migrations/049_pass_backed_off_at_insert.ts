import type { Knex } from 'knex';

/**
 * Issue 43 §5 (isolation): a backed-off webhook's new deliveries were inserted due at once, and the
 * backed-off sweep (server/src/webhooks/dispatcher/backedOffDeliveries.ts) wrote each of them again
 * within a poll to use up the turns that fall within the back-off: beside ten dead receivers at
 * 250 events/s, 2,500 non-HOT row updates a second, and a NOTIFY and a claim for each dead event.
 * The insert now does that pass in the same statement (core/src/events/passBackedOff.ts), up to
 * the fourth turn (the fifth, which ends the delivery, stays the sweep's). `webhooks.retry_base_secs`
 * is the retry base of the dispatcher whose breaker backed the webhook off (null: backed off by a
 * previous version; its deliveries are inserted due, for the sweep, as before), and
 * `walletd_backed_off_turns` is the sweep's rule: the turns that fall before the back-off ends
 * (at least one, at most up to `p_max_attempts`) and the wait from now to the next one.
 */
export const TURNS_FUNCTION = `
create or replace function walletd_backed_off_turns(p_attempts int, p_until timestamptz, p_base float8, p_max_attempts int, p_cap_factor float8)
returns table(turns int, wait float8)
language sql stable
as $fn$
  select s.j, s.total from (
    select j, sum(least(p_base * 2 ^ (p_attempts + j - 1), p_base * p_cap_factor)) over (order by j) as total
    from generate_series(1, greatest(1, p_max_attempts - p_attempts)) j
  ) s
  where p_attempts + s.j >= p_max_attempts or now() + make_interval(secs => s.total) >= p_until
  order by s.j
  limit 1
$fn$`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE webhooks ADD COLUMN retry_base_secs float8');
  await knex.raw(TURNS_FUNCTION);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP FUNCTION walletd_backed_off_turns(int, timestamptz, float8, int, float8)');
  await knex.raw('ALTER TABLE webhooks DROP COLUMN retry_base_secs');
}
