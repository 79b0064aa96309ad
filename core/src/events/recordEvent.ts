import type { Knex } from 'knex';
import { databaseNowMs } from './databaseClock';
import { newEventId } from './eventId';
import { PASS_BACKED_OFF_JOIN, PASS_BACKED_OFF_VALUES } from './passBackedOff';
import { type PreparedStatement, runPrepared } from '../db/prepared';
import { activeTraceparent, withSpan } from '../tracing/spans';
import { type EventEnvelope, type EventType, isOptInEventType } from './types';

export interface RecordEventInput {
  type: EventType;
  chain: string;
  network: string;
  companyId: number;
  /** The wallet the event concerns; webhooks scoped to wallets match on it. */
  walletId: number;
  data: Record<string, unknown>;
}

export interface RecordedEvent {
  envelope: EventEnvelope;
  /** Deliveries queued: one per enabled webhook whose events and walletIds match. */
  queued: number;
}

export const DELIVERY_CHANNEL = 'walletd_deliveries';

/**
 * The outbox write. Call it inside the transaction that records what happened (a transfer, a
 * withdrawal state), so the event and its deliveries commit or vanish with it: nothing is lost
 * and nothing is announced that did not happen. The body bytes are serialised here, once; every
 * attempt posts exactly these bytes.
 */
export function recordEvent(trx: Knex | Knex.Transaction, input: RecordEventInput): Promise<RecordedEvent> {
  // Its span's context is stored with the event: each delivery attempt continues that trace.
  return withSpan('walletd.event.record', { attributes: { 'walletd.event.type': input.type } }, async (span) => {
    const recorded = await insertEvent(trx, input, activeTraceparent());
    span.setAttributes({ 'walletd.event.id': recorded.envelope.id, 'walletd.deliveries.queued': recorded.queued });
    return recorded;
  });
}

async function insertEvent(trx: Knex | Knex.Transaction, input: RecordEventInput, traceparent: string | null): Promise<RecordedEvent> {
  const envelope: EventEnvelope = {
    id: newEventId(),
    type: input.type,
    chain: input.chain,
    network: input.network,
    companyId: input.companyId,
    createdAt: new Date(databaseNowMs()).toISOString(),
    data: input.data,
  };
  const body = JSON.stringify(envelope);
  // One statement: the event, one pending delivery per enabled live webhook whose filters match,
  // and a notification for listening dispatchers (delivered on commit; they also poll). Prepared
  // per connection: every deposit and withdrawal state change runs it.
  const [row] = await runPrepared<{ queued: number }>(trx, RECORD_EVENT, [
    envelope.id,
    input.companyId,
    input.type,
    input.chain,
    input.network,
    input.walletId,
    body,
    envelope.createdAt,
    DELIVERY_CHANNEL,
    isOptInEventType(input.type),
    traceparent,
  ]);
  return { envelope, queued: (row as { queued: number }).queued };
}

const RECORD_EVENT: PreparedStatement = {
  name: 'walletd_record_event_traced',
  text: `with event as (
       insert into events (id, company_id, type, chain, network, wallet_id, body, created_at, trace_context)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $11)
       returning id, created_at
     ), queued as (
       -- The event's created_at too: the claim finds the event in its month alone (migration 047).
       -- A backed-off webhook's delivery is written passed over (passBackedOff.ts, migration 049).
       insert into webhook_deliveries (webhook_id, event_id, event_created_at, event_type, status, next_attempt_at, attempts, last_error)
       select w.id, (select id from event), (select created_at from event), $3, ${PASS_BACKED_OFF_VALUES}
       from webhooks w
       ${PASS_BACKED_OFF_JOIN}
       where w.company_id = $2 and w.enabled and w.deleted_at is null
         -- '*' is the spec's six: an opt-in type (reconciliation.*) goes only where it is named.
         and ($3 = any(w.events) or (not $10::boolean and '*' = any(w.events)))
         and (cardinality(w.wallet_ids) = 0 or $6 = any(w.wallet_ids))
       returning attempts = 0 as due
     )
     -- Only a delivery due now wakes the dispatchers: one passed over waits for its next turn.
     select count(*)::int as queued, case when bool_or(due) then pg_notify($9, '') end as notified from queued`,
};
