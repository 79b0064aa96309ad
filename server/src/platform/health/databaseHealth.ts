import type { ClusterSupervisor, DatabaseWatch, FreeSpaceFloor, WalletdConfig } from '@walletd/core';
import type { ClockSkew } from './clockSkew';

export type DatabaseProblemReason = 'disk_full' | 'database_down' | 'database_unresponsive' | 'clock_skew';

/**
 * What this process knows about its database beyond one query: the embedded cluster's supervisor
 * (down, restarting, given up), the free-space floor of its disk and the watch (a database that
 * takes queries and never answers). `/readyz` answers 503 with `problem()` before it looks at the
 * chains; `/healthz` answers 503 with `fatal()`; the API answers 503 at once with `unresponsive()`.
 */
export interface DatabaseHealth {
  /** Why the service is not ready because of its database, one line; null when nothing is known wrong. */
  problem(): Promise<{ reason: DatabaseProblemReason; message: string } | null>;
  /** Why the process cannot recover by itself (an orchestrator should restart it); null while it can. */
  fatal(): string | null;
  /** One line while the database has not answered for `database.unresponsiveAfterMs`; null while it answers. */
  unresponsive(): string | null;
  /** How long the watch's query in flight has waited so far (ms); null without a watch (an embedder's app). */
  waitingMs(): number | null;
  /** One line while the host clock is further than `clock.maxSkewMs` from the database's; null within it. */
  clockSkew(): string | null;
}

type Deadlines = Pick<WalletdConfig['database'], 'healthzAfterMs'>;

export function createDatabaseHealth(
  supervisor: ClusterSupervisor | null,
  floor: FreeSpaceFloor | null,
  watch: DatabaseWatch | null = null,
  deadlines: Deadlines = { healthzAfterMs: 0 },
  clock: ClockSkew | null = null,
): DatabaseHealth {
  const unresponsive = () => {
    const silent = watch?.silentMs() ?? 0;
    return silent > 0 ? `the database has not answered for ${Math.round(silent / 1000)} s (stopped, hung or its host overloaded)` : null;
  };
  return {
    async problem() {
      const state = supervisor?.state();
      if (state?.status === 'down') {
        const attempts = state.attempts ? `, ${state.attempts} restart attempts failed` : '';
        const message = `${state.reason}: the embedded PostgreSQL is down since ${state.since.toISOString()}${attempts}; restarting it`;
        return { reason: state.reason.startsWith('disk full on ') ? 'disk_full' : 'database_down', message };
      }
      const silent = unresponsive();
      if (silent) return { reason: 'database_unresponsive', message: silent };
      const skew = clock?.tooFar();
      if (skew) return { reason: 'clock_skew', message: skew };
      const shortage = await floor?.shortage();
      return shortage ? { reason: 'disk_full', message: `${shortage}; the indexer pauses writes` } : null;
    },
    fatal() {
      const silent = watch?.silentMs() ?? 0;
      if (deadlines.healthzAfterMs > 0 && silent > deadlines.healthzAfterMs) {
        return `the database has not answered for ${Math.round(silent / 1000)} s (database.healthzAfterMs: ${deadlines.healthzAfterMs} ms)`;
      }
      const state = supervisor?.state();
      if (state?.status !== 'down' || !state.gaveUp) return null;
      return `could not restart the embedded PostgreSQL after ${state.attempts} attempts: ${state.reason}`;
    },
    unresponsive,
    waitingMs: () => watch?.waitingMs() ?? null,
    clockSkew: () => clock?.tooFar() ?? null,
  };
}
