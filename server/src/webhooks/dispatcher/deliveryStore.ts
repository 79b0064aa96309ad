import { type Db, type PreparedStatement, runPrepared, tracingOn } from '@walletd/core';
import { BREAKER_FAILURES, FIRST_BACKOFF_SECONDS, MAX_BACKOFF_SECONDS } from './endpointBreaker';
import { FIRST_BACKOFF_SECONDS as FIRST_RETRY_SECONDS, MAX_ATTEMPTS } from './retryPolicy';

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
  /** The event's stored `traceparent` when traces are on (deliverySpan.ts). */
  traceContext?: string | null;
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
 * One round trip: the database function `walletd_claim_deliveries` (migrations 040, 041) locks the
 * webhooks that have due work, then counts their attempts in flight and claims, each statement
 * on a fresh snapshot so the count sees every claim that committed before the locks were granted
 * (issue 29: the cap has to hold for the receiver, not per process). It was a transaction of two
 * statements, four round trips a claim (issue 43 §5).
 *
 * The result's `capped` (not enumerable) is true when some webhook with due work had no room left
 * after this claim: its attempts ending may free room for more, so the dispatcher claims again
 * then; otherwise a finished attempt is no reason to claim (nothing more was due).
 */
export async function claimDue(
  db: Db,
  batchSize: number,
  leaseMs: number,
  perWebhook: number,
  /** The claiming process's LISTEN session (leaseHolders.ts); null: the lease just ends. */
  leasedBy: number | null = null,
  /**
   * Webhooks whose receiver answers fast, their cap (receiverPace.ts), and how many rows the claim
   * may take for all the other webhooks together (`otherRoom`; null: no limit).
   */
  fast: { ids: number[]; cap: number; otherRoom?: number | null } = { ids: [], cap: perWebhook },
): Promise<Claimed> {
  const rows = await runPrepared<Record<string, unknown>>(db, CLAIM, [
    batchSize,
    leaseMs / 1000,
    perWebhook,
    leasedBy,
    fast.ids,
    fast.cap,
    fast.otherRoom ?? null,
  ]);
  const claimed = rows.filter((r) => r.id !== null).map(toClaimed) as Claimed;
  await attachTraceContexts(db, claimed);
  Object.defineProperty(claimed, 'capped', { value: rows.some((r) => r.capped === true), enumerable: false });
  return claimed;
}

/**
 * Traces on (docs/operate/monitoring.md, "Traces"): the claimed deliveries' events' stored trace
 * contexts, one query per claim, so each attempt's span (deliverySpan.ts) is a child of the span that recorded its
 * event. Off: nothing is read (the claim function stays as it is). A failed read only costs the
 * link: the claimed rows are leased already and are sent all the same.
 */
export async function attachTraceContexts(db: Db, claimed: ClaimedDelivery[]): Promise<void> {
  if (!tracingOn() || claimed.length === 0) return;
  const { rows } = await db
    .raw<{ rows: { id: string; trace_context: string }[] }>(
      'select id, trace_context from events where id = any(?::uuid[]) and trace_context is not null',
      [[...new Set(claimed.map((d) => d.eventId))]],
    )
    .catch(() => ({ rows: [] as { id: string; trace_context: string }[] }));
  const byEvent = new Map(rows.map((r) => [r.id, r.trace_context]));
  for (const d of claimed) d.traceContext = byEvent.get(d.eventId) ?? null;
}

/** Claimed deliveries; `capped`: some webhook's room was used up (more of its work may be due). */
export type Claimed = ClaimedDelivery[] & { readonly capped?: boolean };

const CLAIM: PreparedStatement = {
  name: 'walletd_claim_deliveries',
  text: 'select * from walletd_claim_deliveries($1::int, $2::float8, $3::int, $4::int, $5::int[], $6::int, $7::int)',
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
export async function recordAttempts(
  db: Db,
  outcomes: AttemptOutcome[],
  /** `webhooks.retryBaseMs`: kept on a webhook its breaker backs off (passBackedOff.ts in core). */
  retryBaseMs = FIRST_RETRY_SECONDS * 1000,
): Promise<BreakerChange[]> {
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
    retryBaseMs / 1000,
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
           else w.backed_off_until end,
         -- The retry base the new deliveries' turns are passed on while backed off (migration 049).
         retry_base_secs = case when ${TRIPS} then $9::float8 else w.retry_base_secs end
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
