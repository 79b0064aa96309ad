import type { Knex } from 'knex';
import { InvariantError } from '@walletd/plugin-kit';
import { CLAIM_FUNCTION as CLAIM_047 } from './047_delivery_event_time';

/**
 * Issue 43 §5: a claim that found due work only on webhooks another dispatcher was claiming for
 * (their rows locked, skipped since 041) came back empty, and its dispatcher slept the whole poll
 * interval (500 ms by default) with free slots: with two dispatchers on one busy webhook, every
 * such collision (one at each start, more as the claims interleave) idled one of them for half a
 * second (`npm run bench -- outbox`, backlog x2: as many gaps of 100 ms or more as empty claims).
 * The function now says so: when it locked no webhook but some webhook has due work it may take
 * (the same conditions, without the lock), it returns the row that means "capped" (every column
 * null, `capped` true): work is due that this claim could not take. The dispatcher then claims
 * again shortly instead of at the poll (dispatcher.ts). Same arguments and result columns as 041 and 047,
 * so a dispatcher of the previous version keeps working during a rolling upgrade: it only wakes
 * for a finished attempt, as it did for a capped claim.
 */
const EMPTY = `  if cardinality(v_ids) = 0 then
    return;
  end if;`;

const BUSY = `  if cardinality(v_ids) = 0 then
    -- No webhook locked: if one has due work all the same, another claim holds its row (048).
    if exists (
      with recursive hooks(id) as (
        (select d.webhook_id from webhook_deliveries d where d.status = 'pending' order by d.webhook_id limit 1)
        union all
        select (select d.webhook_id from webhook_deliveries d where d.status = 'pending' and d.webhook_id > h.id order by d.webhook_id limit 1)
        from hooks h where h.id is not null
      )
      select 1 from hooks h join webhooks w on w.id = h.id
      where w.enabled and w.deleted_at is null and (w.backed_off_until is null or w.backed_off_until <= now())
        and exists (select 1 from webhook_deliveries d where d.webhook_id = h.id and d.status = 'pending' and d.next_attempt_at <= now())
    ) then
      return query select null::bigint, null::int, null::uuid, null::bigint, null::text, null::int, null::text, null::jsonb, null::jsonb, true;
    end if;
    return;
  end if;`;

export function claimFunction(): string {
  if (!CLAIM_047.includes(EMPTY)) throw new InvariantError('migration 048: the claim function of 047 no longer has its empty-claim return');
  return CLAIM_047.replace(EMPTY, BUSY);
}

export async function up(knex: Knex): Promise<void> {
  await knex.raw(claimFunction());
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(CLAIM_047);
}
