import { BaseError } from '@walletd/plugin-kit';
import type { Db } from './createDb';

/**
 * The API's reads whose cost grows with the history kept (the transaction list, balances): each
 * runs in a read-only transaction on its own pool with `SET LOCAL statement_timeout`, so that
 * - however slow they get, they hold at most `database.readPoolMax` connections, never the main
 *   pool's that the event feed, the dispatcher, the indexer and every write need (issue 32: ten
 *   transaction lists held all ten connections and a 4 ms event-feed request took 27.5 s);
 * - none runs longer than `database.readTimeoutMs`: PostgreSQL cancels it (SQLSTATE 57014) and
 *   the caller gets 503 `unavailable` with Retry-After, not a connection held for minutes.
 * Two ways to bound them, the same guarantees:
 * - `readsOnConnection` (the default for the pool of `serve`, `database.readLimitsAtConnect`):
 *   every connection of that pool starts with `statement_timeout` and
 *   `default_transaction_read_only=on` as startup settings, so a read is its plain statements, one
 *   round trip each. The transaction below cost four round trips and knex's transaction machinery,
 *   ~300 µs of walletd CPU per `GET /v1/transactions` (bench/README.md, `api`, issue 34).
 * - `boundedReads`: each read in a read-only transaction with `SET LOCAL statement_timeout`, which
 *   ends with the transaction, so it holds through PgBouncer in transaction mode (which refuses a
 *   startup setting it does not track, or drops it when told to ignore `options`), and on a pool
 *   shared with other work (tests, embedders without the reads pool).
 */
export interface BoundedReads {
  readonly timeoutMs: number;
  /** Runs `fn` with a transaction of the reads pool; a timeout or a full pool becomes 503 `unavailable`. */
  run<T>(fn: (db: Db) => Promise<T>): Promise<T>;
}

/**
 * `before` runs first in each read's transaction, under its timeout: a replica's wait for the
 * primary's commits (replicaCatchUp.ts).
 */
export function boundedReads(db: Db, timeoutMs: number, before?: (trx: Db) => Promise<void>): BoundedReads {
  // An integer from the validated config, never caller input: safe to inline (SET takes no bind).
  const ms = Math.max(1, Math.trunc(timeoutMs));
  return {
    timeoutMs: ms,
    async run<T>(fn: (db: Db) => Promise<T>): Promise<T> {
      try {
        return await db.transaction(
          async (trx) => {
            await trx.raw(`set local statement_timeout = ${ms}`);
            await before?.(trx);
            return fn(trx);
          },
          { readOnly: true },
        );
      } catch (e) {
        throw tooSlow(e, ms) ?? e;
      }
    },
  };
}

/** The startup settings of a reads pool for `readsOnConnection` (createDb's `settings`). */
export function readLimits(timeoutMs: number): Record<string, string> {
  return { statement_timeout: String(Math.max(1, Math.trunc(timeoutMs))), default_transaction_read_only: 'on' };
}

/**
 * `db` is a pool opened with `readLimits(timeoutMs)` and used for nothing else: each statement of
 * `fn` runs under the timeout and read only by the connection's own settings, with no transaction.
 * Statements of one read are separate snapshots, as they were in the read-committed transaction.
 */
export function readsOnConnection(db: Db, timeoutMs: number, before?: (db: Db) => Promise<void>): BoundedReads {
  const ms = Math.max(1, Math.trunc(timeoutMs));
  return {
    timeoutMs: ms,
    async run<T>(fn: (db: Db) => Promise<T>): Promise<T> {
      try {
        await before?.(db);
        return await fn(db);
      } catch (e) {
        throw tooSlow(e, ms) ?? e;
      }
    },
  };
}

function tooSlow(e: unknown, ms: number): BaseError | null {
  const err = e as { code?: unknown; name?: unknown; message?: unknown };
  if (err?.code === '57014') {
    return new BaseError(
      'unavailable',
      `The read was stopped after ${ms} ms (database.readTimeoutMs); narrow it (walletId, search) or retry later`,
      { cause: e },
    );
  }
  // Every connection of the reads pool stayed busy with other slow reads for as long as one may run.
  if (err?.name === 'KnexTimeoutError' && String(err.message).includes('acquiring a connection')) {
    return new BaseError('unavailable', 'Too many slow reads are running at once (database.readPoolMax); retry later', { cause: e });
  }
  return null;
}
