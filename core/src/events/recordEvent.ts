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
  await trx('events').insert({
    id: envelope.id,
    company_id: input.companyId,
    type: input.type,
    chain: input.chain,
    network: input.network,
    wallet_id: input.walletId,
    body,
    created_at: envelope.createdAt,
  });
  const queued = await queueDeliveries(trx, envelope.id, input);
  return { envelope, queued };
}

/** One pending delivery per enabled, live webhook of the company whose filters match. */
async function queueDeliveries(trx: Knex | Knex.Transaction, eventId: string, input: RecordEventInput): Promise<number> {
  const { rowCount } = await trx.raw(
    `insert into webhook_deliveries (webhook_id, event_id, event_type, status, next_attempt_at)
     select w.id, ?, ?, 'pending', now()
     from webhooks w
     where w.company_id = ? and w.enabled and w.deleted_at is null
       and (w.events && array['*', ?]::text[])
       and (cardinality(w.wallet_ids) = 0 or ? = any(w.wallet_ids))`,
    [eventId, input.type, input.companyId, input.type, input.walletId],
  );
  // Delivered to listening dispatchers on commit; they also poll, so a lost notification only delays.
  if (rowCount) await trx.raw('select pg_notify(?, ?)', [DELIVERY_CHANNEL, '']);
  return rowCount ?? 0;
}
