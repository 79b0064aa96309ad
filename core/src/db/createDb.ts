import knex, { type Knex } from 'knex';
import pg from 'pg';
import type { Logger } from '../log/logger';
import { knexLog } from './knexLog';
import { migrationSource } from './migrations';
import { disablePreparedStatements } from './prepared';
import { BaseError, InvariantError } from '@walletd/plugin-kit';

export type Db = Knex;

// int8 columns (event sequence, delivery ids, block heights) come back as strings by default.
// Every such value we store fits in 2^53; refuse loudly if one ever does not. Amounts are
// numeric, not int8, and stay strings until the Amount helper turns them into bigint.
pg.types.setTypeParser(20, (text: string) => {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new InvariantError(`int8 value ${text} exceeds the safe integer range`);
  return n;
});

export interface CreateDbOptions {
  url: string;
  poolMax?: number;
  applicationName?: string;
  /** Where knex's own messages go (as JSON); without one knex prints them to stdout. */
  logger?: Logger;
  /** Run the hot paths' statements by name (default true); see prepared.ts. */
  preparedStatements?: boolean;
  /** How long a query waits for a free connection before failing (knex's default: 60 s). */
  acquireTimeoutMs?: number;
  /**
   * Client-side deadline of every statement (pg's `query_timeout`): a server that never answers
   * (stopped, hung) fails it with "Query read timeout" instead of holding the caller.
   */
  queryTimeoutMs?: number;
  /**
   * Server settings each connection starts with (`-c name=value` in the startup packet's `options`),
   * for a pool whose every statement must run under them (boundedReads.ts, `readsOnConnection`).
   */
  settings?: Record<string, string>;
}

/**
 * `options` of the startup packet; names and values are ours (config integers, `on`), never caller
 * input. pg lets an `options` in the URL replace the one given beside it, which would drop ours
 * silently (an unbounded reads pool): the URL's is taken out and sent first, ours after it (where
 * both set one setting, PostgreSQL keeps the last).
 */
function withStartupOptions(url: string, settings: Record<string, string>): { connectionString: string; options: string } {
  const ours = Object.entries(settings)
    .map(([name, value]) => `-c ${name}=${value}`)
    .join(' ');
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    if (/[?&]options=/.test(url))
      throw new BaseError(
        'config_invalid',
        'database URL: its options cannot be combined with the reads pool settings; set them on the role instead',
      );
    return { connectionString: url, options: ours };
  }
  const theirs = parsed.searchParams.get('options');
  if (theirs === null) return { connectionString: url, options: ours };
  parsed.searchParams.delete('options');
  return { connectionString: parsed.toString(), options: `${theirs} ${ours}` };
}

interface RawConnection {
  query(text: string, values: unknown[], cb: (err: Error | null, r: { rows: { name: string; setting: string }[] }) => void): void;
}

/**
 * Refuses a connection on which the startup settings did not take: a pooler between walletd and
 * PostgreSQL (PgBouncer with `options` in `ignore_startup_parameters`) drops them silently, which
 * would leave every read of the pool unbounded. Once per connection, not per statement.
 */
export function checkStartupSettings(conn: RawConnection, settings: Record<string, string>): Promise<void> {
  const names = Object.keys(settings);
  return new Promise((resolve, reject) =>
    conn.query('select name, setting from pg_settings where name = any($1)', [names], (err, r) => {
      if (err) return reject(err);
      const got = new Map(r.rows.map((row) => [row.name, row.setting]));
      const lost = names.filter((n) => got.get(n) !== settings[n]);
      if (lost.length === 0) return resolve();
      const what = lost.map((n) => `${n}=${settings[n]} (the server has ${got.get(n) ?? 'nothing'})`).join(', ');
      reject(
        new BaseError(
          'config_invalid',
          `database: the reads pool's connection settings did not take: ${what}; a pooler such as PgBouncer drops them: set database.readLimitsAtConnect to false`,
        ),
      );
    }),
  );
}

export function createDb(options: CreateDbOptions): Db {
  const db = knex({
    client: 'pg',
    connection: {
      connectionString: options.url,
      application_name: options.applicationName ?? `walletd:${process.pid}`,
      ...(options.queryTimeoutMs ? { query_timeout: options.queryTimeoutMs } : {}),
      // A handshake with a hung server is bounded like the wait for a pooled connection.
      ...(options.acquireTimeoutMs ? { connectionTimeoutMillis: options.acquireTimeoutMs } : {}),
      ...(options.settings ? withStartupOptions(options.url, options.settings) : {}),
    },
    pool: {
      min: 0,
      max: options.poolMax ?? 10,
      ...(options.settings
        ? {
            afterCreate: (conn: RawConnection, done: (err: Error | null, conn: RawConnection) => void) => {
              checkStartupSettings(conn, options.settings ?? {}).then(
                () => done(null, conn),
                (err: Error) => done(err, conn),
              );
            },
          }
        : {}),
    },
    ...(options.acquireTimeoutMs ? { acquireConnectionTimeout: options.acquireTimeoutMs } : {}),
    migrations: { migrationSource, tableName: 'knex_migrations' },
    ...(options.logger ? { log: knexLog(options.logger) } : {}),
  });
  if (options.preparedStatements === false) disablePreparedStatements(db);
  return db;
}

export async function migrateLatest(db: Db): Promise<string[]> {
  const [, applied] = (await db.migrate.latest()) as [number, string[]];
  return applied;
}

export async function migrateRollbackAll(db: Db): Promise<void> {
  await db.migrate.rollback(undefined, true);
}
