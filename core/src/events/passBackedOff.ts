/**
 * A new delivery to a webhook whose breaker has it backed off is written already passed over
 * (migration 049, issue 43 §5): the turns that fall within the back-off used up unsent, as the
 * backed-off sweep would write them a poll later (server/src/webhooks/dispatcher/backedOffDeliveries.ts),
 * so it costs no update and no claim until its next turn. Spec 6.2's schedule: 5 attempts, the
 * wait capped at 12 times the retry base (retryPolicy.ts in the server holds the same;
 * passBackedOffAtInsert.test checks that insert and sweep agree). At most the first four turns
 * are passed here: the fifth, which ends it `failed`, is always the sweep's, so the dispatcher
 * still counts and logs every delivery that ends so (walletd_webhook_attempts_total). A webhook
 * backed off by a previous version has no `retry_base_secs`: its deliveries are inserted due.
 */
const MAX_ATTEMPTS = 5;
const CAP_FACTOR = 12;

/** Joined after `webhooks w`: `pass.turns` (null: not backed off) and `pass.wait`. */
export const PASS_BACKED_OFF_JOIN = `left join lateral (
         select t.turns, t.wait from walletd_backed_off_turns(0, w.backed_off_until, w.retry_base_secs, ${MAX_ATTEMPTS - 1}, ${CAP_FACTOR}) t
         where w.backed_off_until > now() and w.retry_base_secs is not null
       ) pass on true`;

/** status, next_attempt_at, attempts, last_error of the inserted delivery. */
export const PASS_BACKED_OFF_VALUES = `'pending',
       case when pass.turns is null then now() else now() + make_interval(secs => pass.wait) end,
       coalesce(pass.turns, 0),
       case when pass.turns is not null then 'not sent: endpoint backed off until '
         || to_char(w.backed_off_until at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
         || ' after ' || w.consecutive_failures || ' failed attempts in a row' end`;
