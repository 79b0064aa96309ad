import { BaseError } from '@walletd/plugin-kit';
import type { Db } from './createDb';

/**
 * Read-your-writes on a streaming replica (`database.replicaUrl`). A client that creates a
 * withdrawal and then lists its transactions, or a deposit's webhook receiver that then reads the
 * balance, must see what the primary had committed before its read began, on whichever walletd
 * process answers it. So before such a read the primary's WAL insert position is taken (every
 * commit that has returned lies at or before it, asynchronous ones too), and the read, on the
 * replica's reads pool, waits until the replica has replayed up to there (the replay position is
 * the server's, so a probe on one connection of the pool holds for the read on another): at most
 * `maxLagMs`, then 503 `unavailable` rather than an answer older than the caller's own writes.
 * On a server that is not in recovery (the URL names a primary, or a promoted replica)
 * pg_last_wal_replay_lsn() is null and nothing is awaited.
 * The replica's statements are read-committed, so each probe sees what has been replayed so far,
 * and so does the read that follows the last one.
 */
export function replicaCatchUp(primary: Db, maxLagMs: number): (replica: Db) => Promise<void> {
  return async (replica) => {
    const { rows } = await primary.raw('select pg_current_wal_insert_lsn()::text as lsn');
    const target = (rows[0] as { lsn: string }).lsn;
    const until = Date.now() + maxLagMs;
    // Streaming replay on the same network takes a millisecond or a WAL writer cycle (200 ms):
    // probe often at first, then every 50 ms.
    for (let wait = 2; ; wait = Math.min(wait * 2, 50)) {
      const probe = await replica.raw('select coalesce(pg_last_wal_replay_lsn() >= ?::pg_lsn, true) as caught_up', [target]);
      if ((probe.rows[0] as { caught_up: boolean }).caught_up) return;
      if (Date.now() >= until) {
        throw new BaseError(
          'unavailable',
          `The read replica has not replayed the primary's latest commits within ${maxLagMs} ms (database.replicaMaxLagMs); retry later`,
        );
      }
      await new Promise((r) => setTimeout(r, Math.min(wait, Math.max(1, until - Date.now()))));
    }
  };
}
