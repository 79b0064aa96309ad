import type { Db, PreparedStatement } from '@walletd/core';
import { runPrepared } from '@walletd/core';
import { MAX_ATTEMPTS } from './retryPolicy';

/**
 * Leases of a dead dispatcher (issue 43 §6): each claim records the claiming process's LISTEN
 * session (`leased_by`, its backend pid; deliveryListener.ts), a session that lives as long as the
 * process. Once that session is gone from `pg_stat_activity` (the process was killed, or lost its
 * connection), its leases no longer count against the webhook's cap: they are released at once,
 * due now, instead of at the lease's end (60 s). The lost attempt is counted: the receiver may
 * have got it (`attempts` 2 once it is sent again), and the fifth ends the delivery `failed`.
 * A process that only lost its LISTEN connection may still record its attempt: the record then
 * changes nothing (its lease token is gone), and the receiver may get the event twice
 * (at-least-once; it de-duplicates by id). Rows of a claim in progress are skipped (SKIP LOCKED).
 * Returns how many leases were released.
 */
export async function releaseDeadLeases(db: Db): Promise<number> {
  const rows = await runPrepared<{ released: number }>(db, RELEASE_DEAD_LEASES, []);
  return rows[0]?.released ?? 0;
}

// The in-flight rows are read on webhook_deliveries_in_flight (pending and leased: only attempts
// in flight), so this costs the attempts in flight, not the queue.
const RELEASE_DEAD_LEASES: PreparedStatement = {
  name: 'walletd_release_dead_leases',
  text: `with lost as (
       select d.id from webhook_deliveries d
       where d.status = 'pending' and d.leased and d.next_attempt_at > now() and d.leased_by is not null
         and not exists (select 1 from pg_stat_activity a where a.pid = d.leased_by)
       for update of d skip locked
     ), released as (
       update webhook_deliveries d set
         attempts = d.attempts + 1,
         status = case when d.attempts + 1 >= ${MAX_ATTEMPTS} then 'failed' else 'pending' end,
         response_code = null,
         response_body = null,
         last_error = 'lost: the dispatcher sending it stopped before recording the outcome',
         next_attempt_at = case when d.attempts + 1 >= ${MAX_ATTEMPTS} then null else now() end,
         leased = false,
         leased_by = null,
         updated_at = now()
       from lost
       where d.id = lost.id
       returning 1
     )
     select count(*)::int as released from released`,
};
