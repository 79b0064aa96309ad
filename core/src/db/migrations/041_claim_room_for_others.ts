import type { Knex } from 'knex';

/**
 * Issue 43 §1: room kept for the receivers known to answer. The claim of migration 040 with one
 * more argument, `p_other_room`: how many rows it may take for webhooks outside `p_fast` (null: no
 * limit). A new receiver that never answers holds each of its attempts until the timeout, and
 * counts against `concurrency` for its first second (receiverPace.ts); ten going dead together
 * took every slot in that second and the next, twice, and the healthy receiver's events waited
 * 2 s (`npm run bench -- outbox`, isolation with 10 fresh dead). The dispatcher now keeps half of
 * `concurrency` from the receivers not known to answer fast. And the webhook rows are locked
 * SKIP LOCKED: when ten attempts timed out together, recording them (the breaker updates each
 * webhook's row) held up the next claim for the healthy receiver by 400 ms. The 6-argument function stays for a
 * dispatcher of the previous version during a rolling upgrade.
 */
export const CLAIM_FUNCTION = `
create or replace function walletd_claim_deliveries(p_batch int, p_lease_secs float8, p_cap int, p_leased_by int, p_fast int[], p_fast_cap int, p_other_room int)
returns table(id bigint, attempts int, event_id uuid, lease_us bigint, body text, webhook_id int, type text, config jsonb, secret_envelope jsonb, capped boolean)
language plpgsql volatile
set plan_cache_mode = force_generic_plan
set enable_seqscan = off
set enable_bitmapscan = off
set enable_sort = off
as $fn$
#variable_conflict use_column
declare
  v_ids int[];
  v_caps int[];
begin
  -- The webhooks with due deliveries, found by skipping from one webhook id to the next on the
  -- pending rows' index, locked in id order. FOR NO KEY UPDATE: the outbox's inserts (a foreign
  -- key's KEY SHARE) are not blocked; a PATCH waits for the claim. SKIP LOCKED (new in 041): a
  -- webhook another dispatcher is claiming for, or whose outcomes are being recorded (the breaker
  -- updates its row), is left to the next claim instead of holding up every other webhook's.
  select coalesce(array_agg(l.id), '{}'),
         coalesce(array_agg(case when l.failures > 0 then 1 when l.id = any(p_fast) then p_fast_cap else p_cap end), '{}')
    into v_ids, v_caps
  from (
    with recursive hooks(id) as (
      (select d.webhook_id from webhook_deliveries d where d.status = 'pending' order by d.webhook_id limit 1)
      union all
      select (select d.webhook_id from webhook_deliveries d where d.status = 'pending' and d.webhook_id > h.id order by d.webhook_id limit 1)
      from hooks h where h.id is not null
    )
    select w.id, w.consecutive_failures as failures
    from hooks h join webhooks w on w.id = h.id
    where w.enabled and w.deleted_at is null and (w.backed_off_until is null or w.backed_off_until <= now())
      and exists (select 1 from webhook_deliveries d where d.webhook_id = h.id and d.status = 'pending' and d.next_attempt_at <= now())
    order by w.id
    for no key update of w skip locked
  ) l;
  if cardinality(v_ids) = 0 then
    return;
  end if;
  -- Per webhook its free room under the cap (this statement's snapshot sees every claim committed
  -- before the locks were granted), then its oldest due rows up to that room, the batch filled in
  -- turns; the event and webhook are lateral lookups by key, the update takes the ids as an array.
  return query
  with hooks as (
    select h.id, greatest(0, h.cap - (select count(*) from webhook_deliveries d
      where d.webhook_id = h.id and d.status = 'pending' and d.leased and d.next_attempt_at > now())::int) as room
    from unnest(v_ids, v_caps) as h(id, cap)
  ), due as (
    select p.id, h.id as hook, p.next_attempt_at, row_number() over (partition by h.id order by p.next_attempt_at, p.id) as turn
    from hooks h cross join lateral (
      select d.id, d.next_attempt_at from webhook_deliveries d
      where d.webhook_id = h.id and d.status = 'pending' and d.next_attempt_at <= now()
      order by d.next_attempt_at, d.id
      limit least(h.room, p_batch)
      for update of d skip locked
    ) p
  ), claimed as (
    update webhook_deliveries d set next_attempt_at = now() + make_interval(secs => p_lease_secs), leased = true, leased_by = p_leased_by
    where d.id = any(array(
      select o.id from (
        select u.id, u.turn, u.next_attempt_at, u.hook = any(p_fast) as fast,
          row_number() over (partition by u.hook = any(p_fast) order by u.turn, u.next_attempt_at, u.id) as nth
        from due u
      ) o
      where o.fast or p_other_room is null or o.nth <= p_other_room
      order by o.turn, o.next_attempt_at, o.id limit p_batch))
    returning d.id, d.attempts, d.event_id, d.webhook_id, (extract(epoch from d.next_attempt_at) * 1000000)::bigint as lease_us
  ), flag as (
    select exists (select 1 from hooks h where h.room <= (select count(*) from due u where u.hook = h.id))
      or (p_other_room is not null and (select count(*) from due u where not u.hook = any(p_fast)) > p_other_room) as capped
  )
  select r.id, r.attempts, r.event_id, r.lease_us, r.body, r.webhook_id, r.type, r.config, r.secret_envelope, r.capped
  from (
    select c.id, c.attempts, c.event_id, c.lease_us, e.body, w.id as webhook_id, w.type, w.config, w.secret_envelope, f.capped,
      u.turn, u.next_attempt_at as due_at
    from claimed c
    join due u on u.id = c.id
    cross join flag f
    cross join lateral (select e.body from events e where e.id = c.event_id) e
    cross join lateral (select w.id, w.type, w.config, w.secret_envelope from webhooks w where w.id = c.webhook_id) w
    union all
    select null, null, null, null, null, null, null, null, null, true, null, null
    from flag f where f.capped and not exists (select 1 from claimed)
  ) r
  order by r.turn, r.due_at, r.id;
end
$fn$`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(CLAIM_FUNCTION);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP FUNCTION IF EXISTS walletd_claim_deliveries(int, float8, int, int, int[], int, int)');
}
