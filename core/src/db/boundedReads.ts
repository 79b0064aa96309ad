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
 * `SET LOCAL` rather than a session setting or a startup parameter: it ends with the transaction,
 * so it holds through PgBouncer in transaction mode too (a startup parameter is refused there).
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
