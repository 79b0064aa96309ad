/**
 * The circuit breaker of one webhook (issue 29): a receiver that fails or times out attempt after
 * attempt is backed off as a whole, so its deliveries stop taking dispatcher slots and the
 * receiver is not hammered until it has had time to recover. Their schedule still runs: a turn
 * that falls within the back-off is used up unsent (backedOffDeliveries.ts, issue 43), so they
 * end `failed` on the spec's schedule. The state lives on the webhook row and is changed by the
 * attempt record (deliveryStore.ts); these are its rules.
 */

/** Failed attempts in a row (any delivery of the webhook) that back the endpoint off. */
export const BREAKER_FAILURES = 5;
/** The first back-off; each further one in a row doubles it. */
export const FIRST_BACKOFF_SECONDS = 10;
export const MAX_BACKOFF_SECONDS = 300;

/**
 * How many attempts a webhook may have in flight: none while backed off (the claim skips it),
 * one while its last attempt failed (a probe: half-open after a back-off, or a receiver that just
 * started failing), `cap` while it answers.
 */
export function inFlightCap(consecutiveFailures: number, cap: number): number {
  return consecutiveFailures > 0 ? 1 : cap;
}

/**
 * The per-webhook cap when `webhooks.maxInFlightPerWebhook` is unset: a quarter of the slots. A
 * cap also bounds what one busy, healthy receiver gets (each claim takes at most its room), so it
 * is not smaller: with an eighth, one receiver's backlog drained at 600 events/s against 1,351
 * with a quarter (`npm run bench -- outbox`, backlog x1, one run each on the noisy 2-core machine).
 */
export function defaultInFlightPerWebhook(concurrency: number): number {
  return Math.max(1, Math.floor(concurrency / 4));
}
