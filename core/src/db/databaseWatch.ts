import pg from 'pg';
import type { Logger } from '../log/logger';

/**
 * Whether the database answers at all, and how far the process clock is from the database's.
 * A stopped or hung PostgreSQL (SIGSTOP, a frozen VM, a dead link) accepts connections and
 * queries and never answers them: no error ever comes, so the pool's waits are the only symptom
 * ("Timeout acquiring a connection", the wrong cause). One query at a time on a connection of its
 * own (never the main pool's, which the hang fills) says so within `unresponsiveAfterMs`.
 *
 * An error is an answer: a refused connection is a database that is down (the supervisor and
 * isDatabaseUnavailable say that), not one that hangs.
 */
export interface DatabaseWatch {
  start(): void;
  stop(): Promise<void>;
  /** How long the query in flight has gone unanswered, once past `unresponsiveAfterMs`; 0 while the database answers. */
  silentMs(): number;
  /** How long the query in flight has gone unanswered so far, in ms (0 when none is in flight). */
  waitingMs(): number;
  /** The process clock minus the database's at the last answer, in ms (null before one). */
  skewMs(): number | null;
}

export interface DatabaseWatchOptions {
  url: string;
  logger: Logger;
  intervalMs: number;
  unresponsiveAfterMs: number;
  /** Called with each clock sample (process minus database, ms): the clock-skew check's feed. */
  onClock?: (skewMs: number) => void;
}

// A connection silent this long is dropped and a new one tried: a dead link never answers at all.
const RECONNECT_AFTER_MS = 30_000;

export function createDatabaseWatch(opts: DatabaseWatchOptions): DatabaseWatch {
  let client: pg.Client | null = null;
  // Since when the database has not answered (set by a ping, cleared by an answer; a connection
  // the watch cut itself is no answer).
  let silentSince: number | null = null;
  let pinging = false;
  let cut = false;
  let skew: number | null = null;
  let said = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();

  const drop = () => {
    const c = client;
    client = null;
    // A hung server never answers `end()`: the socket is cut instead.
    (c as unknown as { connection?: { stream?: { destroy(): void } } } | null)?.connection?.stream?.destroy();
    c?.end().catch(() => undefined);
  };

  const answered = () => {
    const silent = silentSince === null ? 0 : performance.now() - silentSince;
    silentSince = null;
    if (said) {
      said = false;
      opts.logger.info({ silentMs: Math.round(silent) }, 'database: answers again');
    }
  };

  const ping = async () => {
    pinging = true;
    cut = false;
    silentSince ??= performance.now();
    try {
      if (!client) {
        const c = new pg.Client({ connectionString: opts.url, application_name: `walletd:${process.pid}:watch` });
        c.on('error', () => undefined);
        client = c;
        await c.connect();
      }
      const sentAt = Date.now();
      const r = await client.query<{ ms: string }>(`select (extract(epoch from clock_timestamp()) * 1000)::bigint::text as ms`);
      const receivedAt = Date.now();
      // The database read its clock somewhere between sending and receiving: the midpoint.
      const sample = (sentAt + receivedAt) / 2 - Number(r.rows[0]?.ms);
      skew = sample;
      opts.onClock?.(sample);
      answered();
    } catch {
      drop();
      if (!cut) answered();
    } finally {
      pinging = false;
    }
  };

  const tick = () => {
    if (pinging) {
      const silent = silentSince === null ? 0 : performance.now() - silentSince;
      if (silent > opts.unresponsiveAfterMs && !said) {
        said = true;
        opts.logger.error(
          { silentMs: Math.round(silent) },
          'database: no answer (PostgreSQL is stopped, hung or its host overloaded); /readyz and the API answer 503 database_unresponsive until it answers',
        );
      }
      if (silent > RECONNECT_AFTER_MS && !cut) {
        cut = true;
        drop();
      }
      return;
    }
    running = ping();
  };

  return {
    start() {
      if (timer) return;
      tick();
      timer = setInterval(tick, Math.max(50, Math.min(opts.intervalMs, opts.unresponsiveAfterMs / 2)));
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      cut = true;
      drop();
      // A ping cut while it connects may never settle (pg's connect does not always reject on a
      // destroyed socket), and nothing else holds the event loop during a failed start: awaiting it
      // alone let `serve` exit 0 without its refusal. Wait for it at most a second.
      let capped: NodeJS.Timeout | undefined;
      const cap = new Promise<void>((r) => {
        capped = setTimeout(r, 1000);
      });
      await Promise.race([running.catch(() => undefined), cap]);
      clearTimeout(capped);
    },
    silentMs() {
      if (silentSince === null) return 0;
      const silent = performance.now() - silentSince;
      return silent > opts.unresponsiveAfterMs ? silent : 0;
    },
    waitingMs: () => (silentSince === null ? 0 : performance.now() - silentSince),
    skewMs: () => skew,
  };
}
