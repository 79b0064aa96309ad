import { DELIVERY_CHANNEL, type Logger } from '@walletd/core';
import pg from 'pg';

export interface DeliveryListener {
  /** The LISTEN session's backend pid while it listens (it lives as long as this process), else null. */
  backendPid(): number | null;
  /** Whether this session holds the answer-at-once lock (NOTIFY_LEAD): notifications pass at once. */
  leads(): boolean;
  close(): Promise<void>;
}

const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 30_000;
/**
 * Every NOTIFY reaches every dispatcher; with two, one claim took the new row and the other came
 * back empty, about one empty claim per event (issue 43 §5, `node bench/outbox/pgCounters.js`,
 * paced). One LISTEN session in the database holds this session-level advisory lock and passes
 * each notification on at once; the others pass on the first of a FOLLOW_MS window, once, so
 * work that the leader does not take (it has no free slot, is stuck, or just died) waits at most
 * that long, not the poll. The lock goes with its session (a dead process, a lost connection) and
 * a listener that does not hold it tries again every FIRST_RETRY_MS.
 */
const NOTIFY_LEAD = `hashtext('walletd:dispatcher:notify-lead')`;
const FOLLOW_MS = 25;

/**
 * LISTENs for new deliveries on a dedicated connection (its own client, outside the pool: a held
 * pooled connection would starve a small pool) and calls `onNotify` for each notification (at once
 * while it leads, else once per FOLLOW_MS: NOTIFY_LEAD above). When
 * the connection is lost (PostgreSQL restarted, the backend terminated, the network cut) it is
 * opened again with a doubling back-off, for as long as the dispatcher runs: issue 29 found a
 * dispatcher polling only, for good, after a PostgreSQL restart. Logged once when lost and once
 * when back; `onNotify` is called once it is back, since notifications sent meanwhile are gone.
 * Resolves after the first try, whether it listens or will retry.
 */
export async function listenForDeliveries(settings: pg.ClientConfig, logger: Logger, onNotify: () => void): Promise<DeliveryListener> {
  let closed = false;
  let current: pg.Client | undefined;
  let timer: NodeJS.Timeout | undefined;
  let delay = FIRST_RETRY_MS;
  let lost = false;
  let listening: pg.Client | undefined;
  let leading = false;
  let following: NodeJS.Timeout | undefined;
  const notified = () => {
    if (leading) return onNotify();
    following ??= setTimeout(() => {
      following = undefined;
      onNotify();
    }, FOLLOW_MS);
  };
  // LISTEN first in the text: pg_stat_activity shows the session's last query as a LISTEN.
  const claimLead = async (conn: pg.Client) => {
    const results = (await conn.query(`LISTEN ${DELIVERY_CHANNEL}; select pg_try_advisory_lock(${NOTIFY_LEAD}) as lead`)) as unknown as {
      rows: { lead?: boolean }[];
    }[];
    if (listening === conn || current === conn) leading = results[1]?.rows[0]?.lead === true;
  };
  const leadRetry = setInterval(() => {
    if (listening && !leading) claimLead(listening).catch(() => undefined);
  }, FIRST_RETRY_MS);
  leadRetry.unref();

  const lose = (conn: pg.Client, err: unknown) => {
    if (listening === conn || current === conn) leading = false;
    if (listening === conn) listening = undefined;
    if (closed || current !== conn) return;
    current = undefined;
    conn.end().catch(() => undefined);
    if (!lost) logger.warn({ err }, 'LISTEN connection lost; polling until it is back');
    lost = true;
    schedule();
  };

  const schedule = () => {
    if (closed) return;
    timer = setTimeout(() => void open(), delay);
    delay = Math.min(delay * 2, MAX_RETRY_MS);
  };

  async function open(): Promise<void> {
    if (closed) return;
    const conn = new pg.Client(settings);
    current = conn;
    conn.on('error', (err) => lose(conn, err));
    conn.on('end', () => lose(conn, new Error('connection ended')));
    conn.on('notification', notified);
    try {
      await conn.connect();
      await claimLead(conn);
    } catch (err) {
      if (current === conn) {
        current = undefined;
        conn.end().catch(() => undefined);
        if (!lost) logger.warn({ err }, 'LISTEN failed; polling until it works');
        lost = true;
        schedule();
      }
      return;
    }
    if (closed) {
      await conn.end().catch(() => undefined);
      return;
    }
    delay = FIRST_RETRY_MS;
    listening = conn;
    if (lost) {
      lost = false;
      logger.info('listening again for new deliveries');
      onNotify();
    }
  }

  // The first try is awaited: a delivery committed after the dispatcher says it started wakes it.
  await open();
  return {
    backendPid: () => (listening as { processID?: number | null } | undefined)?.processID ?? null,
    leads: () => leading && listening !== undefined,
    async close() {
      closed = true;
      clearTimeout(timer);
      clearInterval(leadRetry);
      clearTimeout(following);
      const conn = current;
      current = undefined;
      await conn?.end().catch(() => undefined);
    },
  };
}
