import { BaseError, DELIVERY_CHANNEL, type Db, OPT_IN_EVENT_TYPES } from '@walletd/core';
import type { WebhookRow } from './webhooks';

interface DeliveryRow {
  id: number;
  webhook_id: number;
  event_id: string;
  event_type: string;
  /** The dispatcher writes only these (the OpenAPI document's Delivery.status enum). */
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  response_code: number | null;
  last_error: string | null;
  response_body?: string | null;
  next_attempt_at: Date | null;
  created_at: Date;
  updated_at: Date;
  body?: string;
}

const LIST_COLUMNS = [
  'd.id',
  'd.webhook_id',
  'd.event_id',
  'd.event_type',
  'd.status',
  'd.attempts',
  'd.response_code',
  'd.last_error',
  'd.next_attempt_at',
  'd.created_at',
  'd.updated_at',
];

function toView(r: DeliveryRow) {
  return {
    id: r.id,
    webhookId: r.webhook_id,
    eventId: r.event_id,
    eventType: r.event_type,
    status: r.status,
    attempts: r.attempts,
    responseCode: r.response_code,
    lastError: r.last_error,
    // Spec 2.3: present when another try is due (while an attempt is in flight: when its claim ends).
    ...(r.status === 'pending' && r.next_attempt_at ? { nextAttemptAt: r.next_attempt_at.toISOString() } : {}),
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

export interface DeliveryFilter {
  status?: 'pending' | 'delivered' | 'failed';
  /** Keyset page: only deliveries older than this id (the last id of the previous page). */
  before?: number;
}

/** Newest first, without responseBody and payload (spec 4.1). */
export async function listDeliveries(db: Db, webhookId: number, limit: number, filter: DeliveryFilter = {}) {
  const q = db('webhook_deliveries as d').where('d.webhook_id', webhookId);
  if (filter.status !== undefined) q.where('d.status', filter.status);
  if (filter.before !== undefined) q.where('d.id', '<', filter.before);
  const rows = (await q.orderBy('d.id', 'desc').limit(limit).select(LIST_COLUMNS)) as DeliveryRow[];
  return rows.map(toView);
}

/** The full record: payload is the exact JSON that was (or will be) posted. */
export async function getDelivery(db: Db, webhookId: number, deliveryId: number) {
  const row = (await db('webhook_deliveries as d')
    .join('events as e', 'e.id', 'd.event_id')
    .where({ 'd.id': deliveryId, 'd.webhook_id': webhookId })
    .first([...LIST_COLUMNS, 'd.response_body', 'e.body'])) as DeliveryRow | undefined;
  if (!row) throw new BaseError('not_found', 'Delivery not found');
  return { ...toView(row), responseBody: row.response_body ?? null, payload: JSON.parse(row.body as string) as unknown };
}

/**
 * A new delivery of the same event (same id, same bytes), due now; or, while one of that event to
 * this webhook is still pending, that one (`created: false`): a delivery already waits, a second
 * would only post the same bytes twice. The partial unique index (one pending per webhook and
 * event) makes this hold for concurrent calls as well.
 */
export async function redeliver(db: Db, webhook: WebhookRow, deliveryId: number) {
  const source = await db('webhook_deliveries').where({ id: deliveryId, webhook_id: webhook.id }).first('event_id', 'event_type');
  if (!source) throw new BaseError('not_found', 'Delivery not found');
  if (!webhook.enabled) throw new BaseError('conflict', 'The webhook is disabled; enable it before redelivering');
  return db.transaction(async (trx) => {
    const { rows } = await trx.raw(
      `insert into webhook_deliveries (webhook_id, event_id, event_created_at, event_type, status, next_attempt_at)
       -- The event's created_at, for the claim's one-month lookup (migration 047).
       values (?, ?, (select e.created_at from events e where e.id = ?), ?, 'pending', now())
       on conflict (webhook_id, event_id) where status = 'pending' do nothing
       returning *`,
      [webhook.id, source.event_id, source.event_id, source.event_type],
    );
    const created = rows[0] as DeliveryRow | undefined;
    if (created) {
      await trx.raw('select pg_notify(?, ?)', [DELIVERY_CHANNEL, '']);
      return { delivery: toView(created), created: true };
    }
    const pending = (await trx('webhook_deliveries')
      .where({ webhook_id: webhook.id, event_id: source.event_id, status: 'pending' })
      .first()) as DeliveryRow | undefined;
    // Gone between the two statements (its attempt just finished): ask again.
    if (!pending) throw new BaseError('conflict', 'The pending delivery of this event just finished; redeliver again if needed');
    return { delivery: toView(pending), created: false };
  });
}

export interface ReplayInput {
  since: string;
  until?: string;
  status?: 'pending' | 'delivered' | 'failed';
  /** `next` of the previous call: continue after the last event it queued. */
  after?: string;
}

export interface ReplayResult {
  queued: number;
  /** Whether matching events of the window remain after this page. */
  hasMore: boolean;
  /** Pass as `after` (with the same window and status) to queue the rest; null when none remain. */
  next: string | null;
}

export const REPLAY_MAX_EVENTS = 10_000;

// PostgreSQL's timestamptz stores years 1 to 294276 and offsets up to ±15:59; JSON Schema's
// date-time allows year 0000 and offsets to ±23:59. Normalised to UTC within years 1-9999, the
// text always casts, and the ISO strings compare in time order.
const FIRST_YEAR_1 = new Date('0001-01-01T00:00:00.000Z').getTime();
const LAST_YEAR_9999 = new Date('9999-12-31T23:59:59.999Z').getTime();

function storableTime(text: string, field: string): string {
  const t = Date.parse(text);
  if (!Number.isFinite(t) || t < FIRST_YEAR_1 || t > LAST_YEAR_9999) {
    throw new BaseError('validation_failed', `${field} must be a date-time between the years 0001 and 9999, e.g. 2026-01-31T12:00:00Z`);
  }
  return new Date(t).toISOString();
}

/** A replay cursor is an event's sequence number (bigint): anything else would fail the cast (a 500). */
function replayCursor(after: string | undefined): string {
  if (after === undefined) return '0';
  if (!/^(0|[1-9][0-9]{0,18})$/.test(after) || BigInt(after) > 2n ** 63n - 1n) {
    throw new BaseError('validation_failed', 'after must be a cursor returned as `next` by a replay');
  }
  return after;
}

/**
 * Re-queues the events of the window that the webhook's filters match (e.g. after an outage),
 * optionally only those whose latest delivery to this webhook has a status. Same ids and bytes.
 * One page of at most `pageSize` events per call, in event order; `next` continues after its last
 * event, so a window of any size is queued by calling again until `hasMore` is false. Events that
 * commit after a page was taken need no replay: their deliveries are queued with them (outbox).
 */
export async function replay(db: Db, webhook: WebhookRow, input: ReplayInput, pageSize = REPLAY_MAX_EVENTS): Promise<ReplayResult> {
  if (!webhook.enabled) throw new BaseError('conflict', 'The webhook is disabled; enable it before replaying');
  const since = storableTime(input.since, 'since');
  const until = input.until === undefined ? new Date().toISOString() : storableTime(input.until, 'until');
  if (until < since) throw new BaseError('validation_failed', 'until must not be before since');
  const after = replayCursor(input.after);
  // The latest delivery of the event to this webhook: a pending one, if any, is always the latest
  // (a second is never queued beside it: webhook_deliveries_one_pending).
  const statusFilter = input.status ? 'and latest.status = :status' : '';
  return db.transaction(async (trx) => {
    // One more candidate than the page: whether any remain, without a second scan.
    const { rows } = await trx.raw(
      `with candidates as (
         select e.id, e.type, e.seq, e.created_at
         from events e
         -- One probe per event, in webhook_deliveries_by_event (webhook_id, event_id, id): newest
         -- first, LIMIT 1, so the cost is the event's own deliveries. Not a probe of the pending
         -- rows (status = 'pending'): PostgreSQL may answer that from the dispatcher's
         -- webhook_deliveries_due_by_webhook (webhook_id, next_attempt_at, id), walking every
         -- pending entry of the webhook, dead ones too, for each event (issue 32: an hour's
         -- replay grew by 11 ms with each 2,401 entries); nor NOT EXISTS, which may become an
         -- anti-join reading them all.
         left join lateral (
           select d.status from webhook_deliveries d
           where d.webhook_id = :webhookId and d.event_id = e.id
           order by d.id desc limit 1
         ) latest on true
         where e.company_id = :companyId and e.created_at >= :since and e.created_at <= :until
           and e.seq > :after::bigint
           -- '*' is the spec's six: an opt-in type (reconciliation.*) is replayed only where named.
           and (e.type = any(:events::text[]) or ('*' = any(:events::text[]) and not e.type = any(:optIn::text[])))
           and (cardinality(:walletIds::int[]) = 0 or e.wallet_id = any(:walletIds::int[]))
           and latest.status is distinct from 'pending'
           ${statusFilter}
         order by e.seq
         limit :pageSize::int + 1
       ), page as (
         select id, type, seq, created_at from candidates order by seq limit :pageSize::int
       ), queued as (
         insert into webhook_deliveries (webhook_id, event_id, event_created_at, event_type, status, next_attempt_at)
         select :webhookId, id, created_at, type, 'pending', now() from page order by seq
         on conflict (webhook_id, event_id) where status = 'pending' do nothing
         returning 1
       )
       select (select count(*) from queued)::int as queued,
              (select max(seq) from page)::text as last_seq,
              (select count(*) from candidates) > :pageSize::int as has_more`,
      {
        webhookId: webhook.id,
        companyId: webhook.company_id,
        since,
        until,
        after,
        pageSize,
        events: webhook.events,
        optIn: [...OPT_IN_EVENT_TYPES],
        walletIds: webhook.wallet_ids,
        status: input.status ?? null,
      },
    );
    const r = rows[0] as { queued: number; last_seq: string | null; has_more: boolean };
    if (r.queued > 0) {
      // A replay says the receiver is back (issue 43 §2): the breaker is closed, as a new
      // destination closes it, or its replayed deliveries would be used up unsent while it is
      // still backed off. Should the receiver still be dead, the breaker opens again after 5 failures.
      await trx('webhooks')
        .where({ id: webhook.id })
        .update({ consecutive_failures: 0, backoffs: 0, backed_off_at: null, backed_off_until: null });
      await trx.raw('select pg_notify(?, ?)', [DELIVERY_CHANNEL, '']);
    }
    return { queued: r.queued, hasMore: r.has_more, next: r.has_more ? r.last_seq : null };
  });
}
