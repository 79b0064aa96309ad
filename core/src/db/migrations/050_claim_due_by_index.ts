import type { Knex } from 'knex';
import { InvariantError } from '@walletd/plugin-kit';
import { claimFunction as claim048 } from './048_claim_says_busy';

/**
 * Issue 43 §5 (isolation): the claim function asks, for each webhook with pending deliveries,
 * whether one is due (`exists (... next_attempt_at <= now())`, 040, and 048's busy check). Its plan
 * is generic and built on a session's first claim (`force_generic_plan`), and when that claim ran
 * on a nearly empty table the planner answered the question from the (webhook_id, id) index (or
 * (webhook_id, event_id, id)), filtering every row of the webhook by status and due time: a healthy
 * webhook's delivered rows and a dead one's passed-over rows, thousands per webhook on every
 * claim. Beside ten dead receivers that was 35,000 buffers and 20-40 ms per claim (auto_explain in
 * `npm run bench -- outbox`, isolation), the healthy receiver's tail.
 *
 * Asked as "the earliest pending row's due time", ordered by it, the only index that answers
 * without a sort (disabled in the function) is the pending rows' (webhook_id, next_attempt_at, id):
 * one probe per webhook, whatever the statistics were when the plan was built. The probe runs on a
 * materialized list of the webhooks that may be claimed for (enabled, not backed off): left in the
 * join, it was pushed down to the scan of `hooks` and ran again on each of its rescans (one per
 * webhook: 132 probes for 11 webhooks). Same arguments and columns as 048.
 */
const PROBE = (id: string) =>
  `(select d.next_attempt_at from webhook_deliveries d where d.webhook_id = ${id}.id and d.status = 'pending' order by d.next_attempt_at limit 1) <= now()`;

const SELECT_048 = `    )
    select w.id, w.consecutive_failures as failures
    from hooks h join webhooks w on w.id = h.id
    where w.enabled and w.deleted_at is null and (w.backed_off_until is null or w.backed_off_until <= now())
      and exists (select 1 from webhook_deliveries d where d.webhook_id = h.id and d.status = 'pending' and d.next_attempt_at <= now())
    order by w.id`;
const SELECT_050 = `    ), ready as materialized (
      -- The webhooks that may be claimed for, then those with a due delivery (050): one probe each.
      select h.id from hooks h join webhooks w on w.id = h.id
      where w.enabled and w.deleted_at is null and (w.backed_off_until is null or w.backed_off_until <= now())
    ), due_hooks as materialized (
      select r.id from ready r where ${PROBE('r')}
    )
    select w.id, w.consecutive_failures as failures
    from due_hooks h join webhooks w on w.id = h.id
    where w.enabled and w.deleted_at is null and (w.backed_off_until is null or w.backed_off_until <= now())
    order by w.id`;

const BUSY_048 = `      )
      select 1 from hooks h join webhooks w on w.id = h.id
      where w.enabled and w.deleted_at is null and (w.backed_off_until is null or w.backed_off_until <= now())
        and exists (select 1 from webhook_deliveries d where d.webhook_id = h.id and d.status = 'pending' and d.next_attempt_at <= now())
    ) then`;
const BUSY_050 = `      ), ready as materialized (
        select h.id from hooks h join webhooks w on w.id = h.id
        where w.enabled and w.deleted_at is null and (w.backed_off_until is null or w.backed_off_until <= now())
      )
      select 1 from ready r where ${PROBE('r')}
    ) then`;

export function claimFunction(): string {
  const before = claim048();
  // The webhook selection (040) and the busy check (048).
  if (!before.includes(SELECT_048) || !before.includes(BUSY_048)) {
    throw new InvariantError('migration 050: the claim function of 048 no longer asks whether a webhook has due work as it did');
  }
  return before.replace(SELECT_048, SELECT_050).replace(BUSY_048, BUSY_050);
}

export async function up(knex: Knex): Promise<void> {
  await knex.raw(claimFunction());
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(claim048());
}
