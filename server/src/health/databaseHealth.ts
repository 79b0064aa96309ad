import type { ClusterSupervisor, FreeSpaceFloor } from '@walletd/core';

/**
 * What this process knows about its database beyond one query: the embedded cluster's supervisor
 * (down, restarting, given up) and the free-space floor of its disk. `/readyz` answers 503 with
 * `problem()` before it looks at the chains; `/healthz` answers 503 with `fatal()`.
 */
export interface DatabaseHealth {
  /** Why the service is not ready because of its database, one line; null when nothing is known wrong. */
  problem(): Promise<{ reason: 'disk_full' | 'database_down'; message: string } | null>;
  /** Why the process cannot recover by itself (an orchestrator should restart it); null while it can. */
  fatal(): string | null;
}

export function createDatabaseHealth(supervisor: ClusterSupervisor | null, floor: FreeSpaceFloor | null): DatabaseHealth {
  return {
    async problem() {
      const state = supervisor?.state();
      if (state?.status === 'down') {
        const attempts = state.attempts ? `, ${state.attempts} restart attempts failed` : '';
        const message = `${state.reason}: the embedded PostgreSQL is down since ${state.since.toISOString()}${attempts}; restarting it`;
        return { reason: state.reason.startsWith('disk full on ') ? 'disk_full' : 'database_down', message };
      }
      const shortage = await floor?.shortage();
      return shortage ? { reason: 'disk_full', message: `${shortage}; the indexer pauses writes` } : null;
    },
    fatal() {
      const state = supervisor?.state();
      if (state?.status !== 'down' || !state.gaveUp) return null;
      return `could not restart the embedded PostgreSQL after ${state.attempts} attempts: ${state.reason}`;
    },
  };
}
