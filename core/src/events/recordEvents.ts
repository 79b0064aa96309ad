import type { Knex } from 'knex';
import { databaseNowMs } from './databaseClock';
import { newEventId } from './eventId';
import { PASS_BACKED_OFF_JOIN, PASS_BACKED_OFF_VALUES } from './passBackedOff';
import { activeTraceparent, withSpan } from '../tracing/spans';
import { DELIVERY_CHANNEL, type RecordEventInput } from './recordEvent';
import { type EventEnvelope, OPT_IN_EVENT_TYPES } from './types';

/**
 * `recordEvent` for several events in one statement (a block's deposits): the events rows in the
 * given order (their `seq` follows it), one delivery per matching webhook and event, one
 * notification. Same guarantees: call it inside the transaction that records what happened.
 */
export async function recordEvents(
  trx: Knex | Knex.Transaction,
  inputs: RecordEventInput[],
): Promise<{ envelopes: EventEnvelope[]; queued: number }> {
  if (inputs.length === 0) return { envelopes: [], queued: 0 };
  // One span for the statement; its context is stored with each event (recordEvent.ts says why).
  return withSpan('walletd.event.record', { attributes: { 'walletd.events': inputs.length } }, async (span) => {
    const recorded = await insertEvents(trx, inputs, activeTraceparent());
    span.setAttributes({ 'walletd.event.ids': recorded.envelopes.map((e) => e.id), 'walletd.deliveries.queued': recorded.queued });
    return recorded;
  });
}

async function insertEvents(
  trx: Knex | Knex.Transaction,
  inputs: RecordEventInput[],
  traceparent: string | null,
): Promise<{ envelopes: EventEnvelope[]; queued: number }> {
  const createdAt = new Date(databaseNowMs()).toISOString();
  const envelopes: EventEnvelope[] = inputs.map((input) => ({
    id: newEventId(),
    type: input.type,
    chain: input.chain,
    network: input.network,
    companyId: input.companyId,
    createdAt,
    data: input.data,
  }));
  const { rows } = await trx.raw(
    `with input as (
       select * from unnest(?::uuid[], ?::int[], ?::text[], ?::text[], ?::text[], ?::int[], ?::text[])
         with ordinality as i(id, company_id, type, chain, network, wallet_id, body, ord)
     ), event as (
       insert into events (id, company_id, type, chain, network, wallet_id, body, created_at, trace_context)
       select id, company_id, type, chain, network, wallet_id, body, ?::timestamptz, ?::text from input order by ord
       returning id, company_id, type, wallet_id, created_at
     ), queued as (
       -- A backed-off webhook's delivery is written passed over (passBackedOff.ts, migration 049).
       insert into webhook_deliveries (webhook_id, event_id, event_created_at, event_type, status, next_attempt_at, attempts, last_error)
       select w.id, e.id, e.created_at, e.type, ${PASS_BACKED_OFF_VALUES}
       from event e
       join webhooks w on w.company_id = e.company_id and w.enabled and w.deleted_at is null
         -- '*' is the spec's six: an opt-in type (reconciliation.*) goes only where it is named.
         and (e.type = any(w.events) or ('*' = any(w.events) and not e.type = any(?::text[])))
         and (cardinality(w.wallet_ids) = 0 or e.wallet_id = any(w.wallet_ids))
       ${PASS_BACKED_OFF_JOIN}
       returning attempts = 0 as due
     )
     -- Only a delivery due now wakes the dispatchers: one passed over waits for its next turn.
     select count(*)::int as queued, case when bool_or(due) then pg_notify(?, '') end as notified from queued`,
    [
      envelopes.map((e) => e.id),
      inputs.map((i) => i.companyId),
      inputs.map((i) => i.type),
      inputs.map((i) => i.chain),
      inputs.map((i) => i.network),
      inputs.map((i) => i.walletId),
      envelopes.map((e) => JSON.stringify(e)),
      createdAt,
      traceparent,
      [...OPT_IN_EVENT_TYPES],
      DELIVERY_CHANNEL,
    ],
  );
  return { envelopes, queued: (rows[0] as { queued: number }).queued };
}
