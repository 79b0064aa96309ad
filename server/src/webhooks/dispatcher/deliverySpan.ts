import { SpanKind, contextOf, tracingOn, withSpan } from '@walletd/core';
import type { AttemptOutcome, ClaimedDelivery } from './deliveryStore';

/**
 * One attempt in a span: the webhook, delivery and event ids, the attempt's number and its outcome
 * (ok, the response's status). Never the URL (a Slack URL or a bot token is a secret) nor the body.
 */
export function tracedAttempt(d: ClaimedDelivery, attempt: () => Promise<AttemptOutcome>): Promise<AttemptOutcome> {
  // Traces off: no span object, context switch or attribute map per attempt (the no-op tracer's
  // round cost a few µs of the dispatcher's CPU per delivery, issue 43 §5).
  if (!tracingOn()) return attempt();
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
