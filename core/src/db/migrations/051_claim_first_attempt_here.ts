import type { Knex } from 'knex';
import { InvariantError } from '@walletd/plugin-kit';
import { claimFunction as claim050 } from './050_claim_due_by_index';

/**
 * A second dispatcher never sent to a busy receiver that the first one kept full. Whether a
 * receiver is fast (and may take more than the cap) is what each dispatcher saw of its own attempts
 * (receiverPace.ts). While the first dispatcher held more than the cap of leases on a fast receiver,
 * the second one, not knowing it fast, found no room under the cap, so it never made the attempt
 * that would have told it: with two dispatchers and one receiver, one did all the work and the
 * other claimed empty (`npm run bench -- outbox`, backlog x2: on 16 cores 7,082 events/s against
 * 7,823 with one dispatcher; one dispatcher's claims all came back empty).
 *
 * Now a webhook whose room under the cap is used up still gets a room of one in a claim whose
 * dispatcher holds none of its leases, when the receiver has not failed, this dispatcher does not
 * know it fast, and the cap is the default one: one attempt per dispatcher beyond the cap. If it
 * answers fast, the dispatcher's next claim has the fast receiver's room and shares the work. The
 * operator's cap (`webhooks.maxInFlightPerWebhook`, sent as the fast cap too) holds as before, a
 * failing receiver keeps its room of one, and a claim without a LISTEN session (no `leased_by`)
 * has no way to tell its own leases and gets no such room. Same arguments and columns as 050.
 */
const DECLARE_050 = `  v_caps int[];
begin`;
const DECLARE_051 = `  v_caps int[];
  v_first boolean[];
begin`;

const CAPS_050 = `         coalesce(array_agg(case when l.failures > 0 then 1 when l.id = any(p_fast) then p_fast_cap else p_cap end), '{}')
    into v_ids, v_caps`;
const CAPS_051 = `         coalesce(array_agg(case when l.failures > 0 then 1 when l.id = any(p_fast) then p_fast_cap else p_cap end), '{}'),
         -- May have a first attempt from this dispatcher beyond the default cap (051).
         coalesce(array_agg(l.failures = 0 and not l.id = any(p_fast) and p_fast_cap > p_cap and p_leased_by is not null), '{}')
    into v_ids, v_caps, v_first`;

const ROOM_050 = `    select h.id, greatest(0, h.cap - (select count(*) from webhook_deliveries d
      where d.webhook_id = h.id and d.status = 'pending' and d.leased and d.next_attempt_at > now())::int) as room
    from unnest(v_ids, v_caps) as h(id, cap)`;
const ROOM_051 = `    select h.id, case
        when h.leased < h.cap then h.cap - h.leased
        -- Full, yet this dispatcher holds none of its leases: one attempt to learn its pace (051).
        when h.first and not exists (select 1 from webhook_deliveries d
          where d.webhook_id = h.id and d.status = 'pending' and d.leased and d.next_attempt_at > now()
            and d.leased_by = p_leased_by) then 1
        else 0 end as room
    from (
      select h.id, h.cap, h.first, (select count(*) from webhook_deliveries d
        where d.webhook_id = h.id and d.status = 'pending' and d.leased and d.next_attempt_at > now())::int as leased
      from unnest(v_ids, v_caps, v_first) as h(id, cap, first)
    ) h`;

export function claimFunction(): string {
  const before = claim050();
  if (!before.includes(DECLARE_050) || !before.includes(CAPS_050) || !before.includes(ROOM_050)) {
    throw new InvariantError('migration 051: the claim function of 050 no longer computes each webhook’s room as it did');
  }
  return before.replace(DECLARE_050, DECLARE_051).replace(CAPS_050, CAPS_051).replace(ROOM_050, ROOM_051);
}

export async function up(knex: Knex): Promise<void> {
  await knex.raw(claimFunction());
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(claim050());
}
