import { type Db, SpanKind, contextOf, tracingOn, withSpan } from '@walletd/core';
import type { AttemptOutcome, ClaimedDelivery } from './deliveryStore';

/**
 * Traces on (docs/operate/monitoring.md, "Traces"): the claimed deliveries' events' stored trace
 * contexts, one query per claim, so each attempt's span is a child of the span that recorded its
 * event. Off: nothing is read (the claim function stays as it is).
 */
export async function attachTraceContexts(db: Db, claimed: ClaimedDelivery[]): Promise<void> {
  if (!tracingOn() || claimed.length === 0) return;
  const { rows } = await db.raw<{ rows: { id: string; trace_context: string }[] }>(
    'select id, trace_context from events where id = any(?::uuid[]) and trace_context is not null',
    [[...new Set(claimed.map((d) => d.eventId))]],
  );
  const byEvent = new Map(rows.map((r) => [r.id, r.trace_context]));
  for (const d of claimed) d.traceContext = byEvent.get(d.eventId) ?? null;
}

/**
 * One attempt in a span: the webhook, delivery and event ids, the attempt's number and its outcome
 * (ok, the response's status). Never the URL (a Slack URL or a bot token is a secret) nor the body.
 */
export function tracedAttempt(d: ClaimedDelivery, attempt: () => Promise<AttemptOutcome>): Promise<AttemptOutcome> {
  const attributes = {
    'walletd.webhook.id': d.webhookId,
    'walletd.webhook.type': d.type,
    'walletd.delivery.id': d.id,
    'walletd.delivery.attempt': d.attempts + 1,
    'walletd.event.id': d.eventId,
  };
  return withSpan('webhook.deliver', { kind: SpanKind.PRODUCER, attributes, parent: contextOf(d.traceContext) }, async (span) => {
    const outcome = await attempt();
    span.setAttributes({ 'walletd.delivery.ok': outcome.ok });
    if (outcome.responseCode !== null) span.setAttribute('http.response.status_code', outcome.responseCode);
    return outcome;
  });
}
