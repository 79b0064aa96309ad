import type { Db, Logger, PreparedStatement } from '@walletd/core';
import { runPrepared } from '@walletd/core';
import { releaseDeadLeases } from './leaseHolders';
import { FIRST_BACKOFF_SECONDS, MAX_ATTEMPTS, MAX_BACKOFF_SECONDS } from './retryPolicy';

/** Deliveries passed over per statement; the sweep repeats while a batch comes back full. */
const BATCH = 1000;

/**
 * Spec 6.2 rules 5-7 while the breaker has an endpoint backed off (issue 43 §2): a delivery that
 * falls due then is not sent (the breaker keeps protecting the receiver and the slots) but its
 * turn is used up all the same, as a failed attempt saying so in `last_error`, and it is
 * scheduled on the spec's backoff; the fifth ends it `failed`. The turns that fall within the
 * back-off are counted in one write (a delivery is written once per back-off, not once per turn:
 * ten dead receivers at 250 events/s each would otherwise be 12,500 row updates a second). So every delivery of a dead
 * receiver ends within the schedule (about 75 s, plus one timeout per attempt really sent and any
 * Retry-After), and what a dead endpoint holds pending is its events of that window, not all of
 * them since it died. Bulk replay brings them back (a replay also closes the breaker).
 * The webhook is not locked: a claim that takes a delivery the moment the back-off ends has it
 * locked, and this skips it (SKIP LOCKED), so a delivery is never both sent and passed over.
 * Returns how many were passed over and how many of those ended `failed`.
 */
export async function passBackedOff(db: Db, retryBaseMs: number): Promise<{ passed: number; failed: number }> {
  const rows = await runPrepared<{ passed: number; failed: number }>(db, PASS_BACKED_OFF, [BATCH, retryBaseMs / 1000]);
  return rows[0] ?? { passed: 0, failed: 0 };
}

// The wait after attempt n is retryBase * 2^(n-1), capped at 12 times retryBase (5 s -> 60 s):
// backoffSeconds() in retryPolicy.ts, here with n = attempts + 1.
const CAP_FACTOR = MAX_BACKOFF_SECONDS / FIRST_BACKOFF_SECONDS;
const PASS_BACKED_OFF: PreparedStatement = {
  name: 'walletd_pass_backed_off_deliveries',
  text: `with due as (
       select p.id, w.backed_off_until, w.consecutive_failures, step.turns, step.wait
       from webhooks w
       cross join lateral (
         select d.id, d.attempts from webhook_deliveries d
         where d.webhook_id = w.id and d.status = 'pending' and d.next_attempt_at <= now()
         order by d.next_attempt_at, d.id
         limit $1
         for update of d skip locked
       ) p
       -- The turns that fall within the back-off are used up in one write: this one, and each
       -- next one while it still comes before the back-off's end (or until the fifth). The rule is
       -- migration 049's walletd_backed_off_turns, the one the outbox's insert passes turns by.
       cross join lateral walletd_backed_off_turns(p.attempts, w.backed_off_until, $2::float8, ${MAX_ATTEMPTS}, ${CAP_FACTOR}) step
       where w.backed_off_until > now() and w.enabled and w.deleted_at is null
       limit $1
     ), passed as (
       update webhook_deliveries d set
         attempts = d.attempts + due.turns,
         status = case when d.attempts + due.turns >= ${MAX_ATTEMPTS} then 'failed' else 'pending' end,
         response_code = null,
         response_body = null,
         last_error = 'not sent: endpoint backed off until '
           || to_char(due.backed_off_until at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
           || ' after ' || due.consecutive_failures || ' failed attempts in a row',
         next_attempt_at = case when d.attempts + due.turns >= ${MAX_ATTEMPTS} then null
           else now() + make_interval(secs => due.wait) end,
         leased = false,
         updated_at = now()
       from due
       where d.id = due.id
       returning d.status
     )
     select count(*)::int as passed, (count(*) filter (where status = 'failed'))::int as failed from passed`,
};

export interface BackedOffSweep {
  stop(): Promise<void>;
}

/**
 * Every `intervalMs` beside the claims, until stopped: releases the leases of dead dispatchers
 * (leaseHolders.ts), then passes over the due deliveries of backed-off endpoints.
 */
export function startBackedOffSweep(
  db: Db,
  retryBaseMs: number,
  intervalMs: number,
  logger: Logger,
  onFailed: (n: number) => void,
): BackedOffSweep {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const tick = async () => {
    try {
      const released = await releaseDeadLeases(db);
      if (released > 0) logger.warn({ deliveries: released }, 'released the leases of a dispatcher that is gone: sending them again');
      for (;;) {
        const { passed, failed } = await passBackedOff(db, retryBaseMs);
        if (failed > 0) {
          onFailed(failed);
          logger.warn({ deliveries: failed }, 'deliveries failed for good: their endpoint stayed backed off');
        }
        if (passed < BATCH || stopped) break;
      }
    } catch (err) {
      logger.error({ err }, 'passing over deliveries of backed-off endpoints failed');
    }
    if (!stopped) schedule();
  };
  const schedule = () => {
    timer = setTimeout(() => {
      running = tick();
    }, intervalMs);
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
