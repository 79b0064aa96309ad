import { type Db, type PreparedStatement, runPrepared } from '@walletd/core';
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
 * Claims due deliveries of enabled webhooks. SKIP LOCKED lets any number of dispatchers share
 * the queue; the lease (next_attempt_at pushed into the future) keeps a claimed row away from the
 * others until its outcome is recorded, and hands it back if this process dies first.
 * The destination and secret are read here, at send time: a PATCH or a rotation applies at once.
 */
export async function claimDue(db: Db, batchSize: number, leaseMs: number): Promise<ClaimedDelivery[]> {
  const rows = await runPrepared<Record<string, unknown>>(db, CLAIM, [batchSize, leaseMs / 1000]);
  return rows.map(toClaimed);
}

// The walk of webhook_deliveries_due_order in claim order, reading only the rows it takes, whatever
// the statistics said when the connection first ran it (indexPlan; issue 17: a plan chosen while
// the table was empty scanned every delivery ever made, twice, per claim).
const CLAIM: PreparedStatement = {
  name: 'walletd_claim_due',
  indexPlan: true,
  // The webhook's state is a per-row sub-select, not a join: with a join PostgreSQL could start from
  // the webhook and read all its pending rows through webhook_deliveries_one_pending, then sort
  // them (12,128 rows, 12 ms per claim in a 20,000-event backlog); a sub-select cannot be reordered.
  // The same for the rest, because an ANALYZE makes PostgreSQL replan the statement with the
  // session's normal settings and the statistics of that moment: the update takes the claimed ids
  // as an array (a primary-key read) and the event and webhook are lateral lookups by key. As a
  // join, a replan on a small table's statistics hashed a scan of every delivery and every event
  // into each claim until the next ANALYZE (claimPlan.test.ts).
  text: `with due as (
       select d.id from webhook_deliveries d
       where d.status = 'pending' and d.next_attempt_at <= now()
         and (select w.enabled and w.deleted_at is null from webhooks w where w.id = d.webhook_id)
       order by d.next_attempt_at, d.id
       limit $1
       for update of d skip locked
     ), claimed as (
       update webhook_deliveries d set next_attempt_at = now() + make_interval(secs => $2)
       where d.id = any(array(select id from due))
       returning d.id, d.attempts, d.event_id, d.webhook_id, (extract(epoch from d.next_attempt_at) * 1000000)::bigint as lease_us
     )
     select c.id, c.attempts, c.event_id, c.lease_us, e.body, w.id as webhook_id, w.type, w.config, w.secret_envelope
     from claimed c
     cross join lateral (select e.body from events e where e.id = c.event_id) e
     cross join lateral (select w.id, w.type, w.config, w.secret_envelope from webhooks w where w.id = c.webhook_id) w`,
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
  leaseUs: number;
  ok: boolean;
  responseCode: number | null;
  responseBody: string | null;
  error: string | null;
  /** Seconds before the next try (backoff, or a 429's Retry-After if later). */
  retryInSeconds: number;
}

/**
 * Records a batch of attempts in one statement, each only under the claim that made it: if the
 * lease ran out and another dispatcher claimed the delivery, this stale result changes nothing.
 * A success that lands after the webhook was deleted still counts as delivered.
 */
export async function recordAttempts(db: Db, outcomes: AttemptOutcome[]): Promise<void> {
  if (outcomes.length === 0) return;
  await runPrepared(db, RECORD_ATTEMPTS, [
    outcomes.map((o) => o.id),
    outcomes.map((o) => o.leaseUs),
    outcomes.map((o) => o.ok),
    outcomes.map((o) => o.responseCode),
    outcomes.map((o) => o.error),
    outcomes.map((o) => o.responseBody),
    outcomes.map((o) => o.retryInSeconds),
  ]);
}

// One text for any batch size (columns as arrays, unnested), so it is prepared once per connection.
const RECORD_ATTEMPTS: PreparedStatement = {
  name: 'walletd_record_attempts',
  indexPlan: true,
  text: `update webhook_deliveries d set
       attempts = d.attempts + 1,
       status = case when v.ok then 'delivered' when d.attempts + 1 >= ${MAX_ATTEMPTS} then 'failed' else 'pending' end,
       response_code = v.code,
       last_error = v.err,
       response_body = v.body,
       next_attempt_at = case when v.ok or d.attempts + 1 >= ${MAX_ATTEMPTS} then null else now() + make_interval(secs => v.retry_in) end,
       updated_at = now()
     from unnest($1::bigint[], $2::bigint[], $3::boolean[], $4::int[], $5::text[], $6::text[], $7::float8[])
       as v(id, lease_us, ok, code, err, body, retry_in)
     where d.id = v.id
       -- Repeated as an array condition so the plan reads the batch's rows by primary key (without
       -- it, a hash join over every delivery of the table was planned while the table looked empty).
       and d.id = any($1::bigint[])
       and (extract(epoch from d.next_attempt_at) * 1000000)::bigint = v.lease_us
       and (d.status = 'pending' or (v.ok and d.last_error = 'webhook deleted'))`,
};
