import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { EventEnvelope, EventType } from './types';

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
export async function recordEvent(trx: Knex | Knex.Transaction, input: RecordEventInput): Promise<RecordedEvent> {
  const envelope: EventEnvelope = {
    id: randomUUID(),
    type: input.type,
    chain: input.chain,
    network: input.network,
    companyId: input.companyId,
    createdAt: new Date().toISOString(),
    data: input.data,
  };
  const body = JSON.stringify(envelope);
  // One statement: the event, one pending delivery per enabled live webhook whose filters match,
  // and a notification for listening dispatchers (delivered on commit; they also poll).
  const { rows } = await trx.raw(
    `with event as (
       insert into events (id, company_id, type, chain, network, wallet_id, body, created_at)
       values (?, ?, ?, ?, ?, ?, ?, ?)
       returning id
     ), queued as (
       insert into webhook_deliveries (webhook_id, event_id, event_type, status, next_attempt_at)
       select w.id, (select id from event), ?, 'pending', now()
       from webhooks w
       where w.company_id = ? and w.enabled and w.deleted_at is null
         and (w.events && array['*', ?]::text[])
         and (cardinality(w.wallet_ids) = 0 or ? = any(w.wallet_ids))
       returning 1
     )
     select count(*)::int as queued, case when count(*) > 0 then pg_notify(?, '') end as notified from queued`,
    [
      envelope.id,
      input.companyId,
      input.type,
      input.chain,
      input.network,
      input.walletId,
      body,
      envelope.createdAt,
      input.type,
      input.companyId,
      input.type,
      input.walletId,
      DELIVERY_CHANNEL,
    ],
  );
  return { envelope, queued: (rows[0] as { queued: number }).queued };
}
