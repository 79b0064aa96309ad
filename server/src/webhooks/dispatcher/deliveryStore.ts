import { type Db, type PreparedStatement, runPrepared } from '@walletd/core';
import { BREAKER_FAILURES, FIRST_BACKOFF_SECONDS, inFlightCap, MAX_BACKOFF_SECONDS } from './endpointBreaker';
import { MAX_ATTEMPTS } from './retryPolicy';

export interface ClaimedDelivery {
  id: number;
  attempts: number;
  eventId: string;
  body: string;
  webhookId: number;
  type: string;
  config: Record<string, unknown>;
  secretEnvelope: unknown;
  /** The claim's token: the lease end in microseconds. Only this claim may record the attempt. */
  leaseUs: number;
}

/**
 * Claims due deliveries of enabled webhooks, at most `perWebhook` in flight per webhook across
 * every dispatcher and none for a backed-off one, taking each webhook's oldest in turns (every
 * webhook's first, then every second…) so that no webhook's backlog goes ahead of another's.
 * SKIP LOCKED lets any number of dispatchers share the queue; the lease (next_attempt_at pushed
 * into the future, `leased` set) keeps a claimed row away from the others until its outcome is
 * recorded, and hands it back if this process dies first. The destination and secret are read
 * here, at send time: a PATCH or a rotation applies at once.
 *
 * Two statements in one transaction: the first locks the webhooks that have due work, the second
 * counts their attempts in flight and claims. The count must see every claim that committed
 * before it, which one statement cannot (its snapshot is taken before it waits for a lock): two
 * dispatchers claiming at the same moment would each see the other's slots free and take a cap
 * each (issue 29: the cap has to hold for the receiver, not per process).
 */
export async function claimDue(
  db: Db,
  batchSize: number,
  leaseMs: number,
  perWebhook: number,
  /** The claiming process's LISTEN session (leaseHolders.ts); null: the lease just ends. */
  leasedBy: number | null = null,
  /** A webhook's cap while it answers, when not `perWebhook` (receiverPace.ts: a fast receiver's). */
  capOf: (webhookId: number) => number = () => perWebhook,
): Promise<ClaimedDelivery[]> {
  return db.transaction(async (trx) => {
    // Run even with no webhook: its plan is then built the first time the dispatcher looks, on an
    // empty queue as on a full one (indexPlan; claimPlan.test.ts).
    const hooks = await runPrepared<{ id: number; failures: number }>(trx, LOCK_DUE_WEBHOOKS, []);
    const rows = await runPrepared<Record<string, unknown>>(trx, CLAIM, [
      hooks.map((h) => h.id),
      hooks.map((h) => inFlightCap(h.failures, capOf(h.id))),
      batchSize,
      leaseMs / 1000,
      leasedBy,
    ]);
    return rows.map(toClaimed);
  });
}

// The webhooks with due deliveries, found by skipping from one webhook id to the next on the
// pending rows' index (one probe per webhook with pending work, whatever its backlog), locked in
// id order (no deadlock between dispatchers). FOR NO KEY UPDATE: the outbox's inserts (a foreign
// key's KEY SHARE) are not blocked; a PATCH waits for the claim.
const LOCK_DUE_WEBHOOKS: PreparedStatement = {
  name: 'walletd_claim_webhooks',
  indexPlan: true,
  text: `with recursive hooks(id) as (
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
     for no key update of w`,
};

// Per webhook (each walk on webhook_deliveries_due_by_webhook, reading only the rows it takes,
// whatever the statistics said when the connection first ran it: indexPlan; issue 17), its free
// room under the cap, then its oldest due rows up to that room; the batch is filled in turns.
// The event and webhook are lateral lookups by key, the update takes the ids as an array (a
// primary-key read): as joins, a replan after an ANALYZE hashed scans of whole tables into each
// claim (claimPlan.test.ts).
const CLAIM: PreparedStatement = {
  name: 'walletd_claim_due_by_webhook',
  indexPlan: true,
  text: `with hooks as (
       select h.id, greatest(0, h.cap - (select count(*) from webhook_deliveries d
         where d.webhook_id = h.id and d.status = 'pending' and d.leased and d.next_attempt_at > now())::int) as room
       from unnest($1::int[], $2::int[]) as h(id, cap)
     ), due as (
       select p.id, p.next_attempt_at, row_number() over (partition by h.id order by p.next_attempt_at, p.id) as turn
       from hooks h cross join lateral (
         select d.id, d.next_attempt_at from webhook_deliveries d
         where d.webhook_id = h.id and d.status = 'pending' and d.next_attempt_at <= now()
         order by d.next_attempt_at, d.id
         limit least(h.room, $3)
         for update of d skip locked
       ) p
     ), claimed as (
       update webhook_deliveries d set next_attempt_at = now() + make_interval(secs => $4), leased = true, leased_by = $5::int
       where d.id = any(array(select id from due order by turn, next_attempt_at, id limit $3))
       returning d.id, d.attempts, d.event_id, d.webhook_id, (extract(epoch from d.next_attempt_at) * 1000000)::bigint as lease_us
     )
     select c.id, c.attempts, c.event_id, c.lease_us, e.body, w.id as webhook_id, w.type, w.config, w.secret_envelope
     from claimed c
     join due u on u.id = c.id
     cross join lateral (select e.body from events e where e.id = c.event_id) e
     cross join lateral (select w.id, w.type, w.config, w.secret_envelope from webhooks w where w.id = c.webhook_id) w
     order by u.turn, u.next_attempt_at, u.id`,
};

function toClaimed(r: Record<string, unknown>): ClaimedDelivery {
  return {
    id: r.id as number,
    attempts: r.attempts as number,
    eventId: r.event_id as string,
    body: r.body as string,
    webhookId: r.webhook_id as number,
    type: r.type as string,
    config: r.config as Record<string, unknown>,
    secretEnvelope: r.secret_envelope,
    leaseUs: Number(r.lease_us),
  };
}

export interface AttemptOutcome {
  id: number;
  webhookId: number;
  leaseUs: number;
  ok: boolean;
  responseCode: number | null;
  responseBody: string | null;
  error: string | null;
  /** Seconds before the next try (backoff, or a 429's Retry-After if later). */
  retryInSeconds: number;
}

/** A webhook whose breaker this record changed: it was backed off, or it answered again. */
export interface BreakerChange {
  webhookId: number;
  /** Failed attempts in a row (0 once it answered). */
  failures: number;
  /** Set when this record backed it off. */
  backedOffUntil: Date | null;
  /** It answered 2xx after failing; `wasBackedOff`: after at least one back-off. */
  answered: boolean;
  wasBackedOff: boolean;
}

/**
 * Records a batch of attempts in one statement, each only under the claim that made it: if the
 * lease ran out and another dispatcher claimed the delivery, this stale result changes nothing.
 * A success that lands after the webhook was deleted still counts as delivered.
 * The same statement keeps each webhook's breaker (endpointBreaker.ts): a 2xx closes it, failures
 * count up and back the webhook off; a delivery that failed while its webhook is backed off says
 * so in `last_error`. Its next attempt keeps the spec's schedule: one that falls due while the
 * webhook is still backed off is used up unsent (backedOffDeliveries.ts). A webhook that answers and never
 * failed is not written: the hot path pays one key lookup per webhook of the batch.
 */
export async function recordAttempts(db: Db, outcomes: AttemptOutcome[]): Promise<BreakerChange[]> {
  if (outcomes.length === 0) return [];
  const rows = await runPrepared<Record<string, unknown>>(db, RECORD_ATTEMPTS, [
    outcomes.map((o) => o.id),
    outcomes.map((o) => o.leaseUs),
    outcomes.map((o) => o.ok),
    outcomes.map((o) => o.responseCode),
    outcomes.map((o) => o.error),
    outcomes.map((o) => o.responseBody),
    outcomes.map((o) => o.retryInSeconds),
    outcomes.map((o) => o.webhookId),
  ]);
  return rows.map((r) => ({
    webhookId: r.id as number,
    failures: r.failures as number,
    backedOffUntil: r.tripped ? (r.backed_off_until as Date) : null,
    answered: r.answered as boolean,
    wasBackedOff: r.was_backed_off as boolean,
  }));
}

// Backs off now: every attempt of the batch failed, the count reaches the threshold, and the
// webhook is not backed off already (a failed probe after a back-off trips it again, doubled).
const TRIPS = `(not o.answered and w.consecutive_failures + o.failed >= ${BREAKER_FAILURES}
       and (w.backed_off_until is null or w.backed_off_until <= now()))`;

// One text for any batch size (columns as arrays, unnested), so it is prepared once per connection.
const RECORD_ATTEMPTS: PreparedStatement = {
  name: 'walletd_record_attempts_with_breaker',
  indexPlan: true,
  text: `with v as (
       select * from unnest($1::bigint[], $2::bigint[], $3::boolean[], $4::int[], $5::text[], $6::text[], $7::float8[], $8::int[])
         as v(id, lease_us, ok, code, err, body, retry_in, webhook_id)
     ), o as (
       select v.webhook_id, bool_or(v.ok) as answered, (count(*) filter (where not v.ok))::int as failed
       from v group by v.webhook_id
     ), breaker as (
       update webhooks w set
         consecutive_failures = case when o.answered then 0 else w.consecutive_failures + o.failed end,
         backoffs = case when o.answered then 0 when ${TRIPS} then w.backoffs + 1 else w.backoffs end,
         backed_off_at = case when o.answered then null when ${TRIPS} then now() else w.backed_off_at end,
         backed_off_until = case when o.answered then null
           when ${TRIPS} then now() + make_interval(secs => least(${MAX_BACKOFF_SECONDS}, ${FIRST_BACKOFF_SECONDS} * 2 ^ w.backoffs))
           else w.backed_off_until end
       from o
       where w.id = o.webhook_id and w.id = any($8::int[]) and (w.consecutive_failures > 0 or not o.answered)
       returning w.id, w.consecutive_failures as failures, w.backed_off_until, w.backed_off_at = now() as tripped, o.answered,
         (select w0.backoffs > 0 from webhooks w0 where w0.id = w.id) as was_backed_off
     ), recorded as (
       update webhook_deliveries d set
         attempts = d.attempts + 1,
         status = case when v.ok then 'delivered' when d.attempts + 1 >= ${MAX_ATTEMPTS} then 'failed' else 'pending' end,
         response_code = v.code,
         last_error = case when not v.ok and b.backed_off_until > now()
           then v.err || ' (endpoint backed off until ' || to_char(b.backed_off_until at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
             || ' after ' || b.failures || ' failed attempts in a row)'
           else v.err end,
         response_body = v.body,
         next_attempt_at = case when v.ok or d.attempts + 1 >= ${MAX_ATTEMPTS} then null
           else now() + make_interval(secs => v.retry_in) end,
         leased = false,
         updated_at = now()
       from v left join breaker b on b.id = v.webhook_id
       where d.id = v.id
         -- Repeated as an array condition so the plan reads the batch's rows by primary key (without
         -- it, a hash join over every delivery of the table was planned while the table looked empty).
         and d.id = any($1::bigint[])
         and (extract(epoch from d.next_attempt_at) * 1000000)::bigint = v.lease_us
         and (d.status = 'pending' or (v.ok and d.last_error = 'webhook deleted'))
       returning d.id
     )
     select b.id, b.failures, b.backed_off_until, b.tripped, b.answered, b.was_backed_off from breaker b`,
};
