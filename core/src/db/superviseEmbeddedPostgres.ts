import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../log';
import { diskFullMessage, isDiskFull } from './diskFull';
import type { EmbeddedPostgresHandle } from './embeddedPostgres';
import { readPostmasterFile } from './postmasterFile';

export type ClusterState =
  | { status: 'up' }
  | {
      status: 'down';
      since: Date;
      /** Restart attempts that failed since it went down. */
      attempts: number;
      /** One line: "disk full on <path>", or the first line of the last failure. */
      reason: string;
      /** `maxAttempts` restarts failed: the process cannot recover by itself (`/healthz` fails). */
      gaveUp: boolean;
    };

export interface ClusterSupervisorOptions {
  logger: Logger;
  /** First wait after a failed restart, doubling up to 30 s (`database.embeddedRestartBackoffMs`). */
  backoffMs: number;
  /** Consecutive failed restarts after which the process gives up on itself (`database.embeddedRestartAttempts`). */
  maxAttempts: number;
  /** How often the postmaster is looked for (default 1000 ms). */
  checkMs?: number;
  /** Why a failed restart may be a full disk although its error does not say so (the free-space floor). */
  diskShortage?: () => Promise<string | null>;
  onDown?: () => void;
  onRestart?: (outcome: 'restarted' | 'failed') => void;
}

export interface ClusterSupervisor {
  state(): ClusterState;
  /** Stops watching (before the process stops the cluster on purpose). */
  stop(): Promise<void>;
}

const MAX_BACKOFF_MS = 30_000;
const firstLine = (text: string) => text.split('\n')[0]?.slice(0, 300) ?? '';

/**
 * Watches the postmaster of the embedded cluster this process uses and, when it is gone (killed,
 * or crashed: PostgreSQL shuts down when a WAL write fails on a full disk), starts it again with
 * back-off until it runs. The pool needs nothing: knex drops the dead connections and opens new
 * ones once the server answers. Every state change is logged once, with the cause in one line.
 */
export function superviseEmbeddedPostgres(handle: EmbeddedPostgresHandle, options: ClusterSupervisorOptions): ClusterSupervisor {
  const { logger } = options;
  const checkMs = options.checkMs ?? 1000;
  const where = { dataDir: handle.dataDir };
  let state: ClusterState = { status: 'up' };
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;

  /** The server log's last lines name a full disk when that is why it stopped. */
  const deathReason = (pid: number | undefined): string => {
    const log = join(handle.dataDir, 'walletd-postgres.log');
    const tail = existsSync(log) ? readFileSync(log, 'utf8').slice(-4000) : '';
    if (isDiskFull(tail)) return diskFullMessage(handle.dataDir);
    return `its postmaster${pid ? ` (pid ${pid})` : ''} exited`;
  };

  const whyFailed = async (err: unknown): Promise<string> => {
    if (isDiskFull(err)) return diskFullMessage(handle.dataDir);
    const shortage = await options.diskShortage?.().catch(() => null);
    return shortage ?? firstLine(err instanceof Error ? err.message : String(err));
  };

  async function check(): Promise<void> {
    if (state.status === 'up') {
      const pm = readPostmasterFile(handle.dataDir);
      if (pm?.alive) return schedule(checkMs);
      const reason = deathReason(pm?.pid);
      state = { status: 'down', since: new Date(), attempts: 0, reason, gaveUp: false };
      options.onDown?.();
      logger.error({ ...where, reason }, `embedded PostgreSQL stopped: ${reason}; restarting it`);
    }
    const down = state;
    if (down.status !== 'down') return;
    try {
      await handle.revive();
      const downSeconds = Math.round((Date.now() - down.since.getTime()) / 1000);
      state = { status: 'up' };
      options.onRestart?.('restarted');
      logger.warn({ ...where, failedAttempts: down.attempts, downSeconds }, `embedded PostgreSQL is running again after ${downSeconds} s`);
      schedule(checkMs);
    } catch (err) {
      if (stopped) return;
      const attempts = down.attempts + 1;
      const reason = await whyFailed(err);
      const gaveUp = attempts >= options.maxAttempts;
      state = { ...down, attempts, reason, gaveUp };
      options.onRestart?.('failed');
      const retryInMs = Math.min(options.backoffMs * 2 ** (attempts - 1), MAX_BACKOFF_MS);
      if (gaveUp && !down.gaveUp) {
        logger.fatal(
          { ...where, attempts, reason, retryInMs },
          `could not restart the embedded PostgreSQL after ${attempts} attempts: ${reason}; /healthz now fails so that the process is restarted (still retrying)`,
        );
      } else {
        logger.error({ ...where, attempts, reason, retryInMs }, `could not restart the embedded PostgreSQL: ${reason}; retrying`);
      }
      schedule(retryInMs);
    }
  }

  function schedule(ms: number): void {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = null;
      running = check()
        .catch((err: unknown) => logger.error({ err, ...where }, 'embedded PostgreSQL supervisor failed; checking again'))
        .finally(() => {
          running = null;
          if (!stopped && timer === null) schedule(checkMs);
        });
    }, ms);
    timer.unref();
  }

  schedule(checkMs);
  return {
    state: () => state,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
