import { DELIVERY_CHANNEL, type Logger } from '@walletd/core';
import pg from 'pg';

export interface DeliveryListener {
  /** The LISTEN session's backend pid while it listens (it lives as long as this process), else null. */
  backendPid(): number | null;
  close(): Promise<void>;
}

const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 30_000;

/**
 * LISTENs for new deliveries on a dedicated connection (its own client, outside the pool: a held
 * pooled connection would starve a small pool) and calls `onNotify` for each notification. When
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

  const lose = (conn: pg.Client, err: unknown) => {
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
    conn.on('notification', onNotify);
    try {
      await conn.connect();
      await conn.query(`LISTEN ${DELIVERY_CHANNEL}`);
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
    async close() {
      closed = true;
      clearTimeout(timer);
      const conn = current;
      current = undefined;
      await conn?.end().catch(() => undefined);
    },
  };
}
