import type { Knex } from 'knex';
import type { Db } from './createDb';

/**
 * A statement of a measured hot path (every authenticated request runs one), run by name on a
 * connection of the knex pool: PostgreSQL parses and plans it once per connection instead of once
 * per call, and the call skips knex's query building. Measured on this project's 2-core machine:
 * the key lookup costs ~390 µs of walletd CPU through `db.raw` against ~150 µs named on the same
 * pool, and PostgreSQL serves twice the lookups per second (bench/README.md, `api`).
 *
 * Rules for a statement given here (why: a prepared statement outlives a deploy's migrations):
 * - name explicit columns, never `*`: PostgreSQL re-plans a prepared statement after DDL but
 *   refuses one whose result columns changed ("cached plan must not change result type"), which a
 *   migration adding a column would cause in every process still running the old release;
 * - `$1`, `$2` … placeholders, as pg takes them;
 * - the name is unique per text: pg refuses one name prepared with two texts.
 *
 * `database.preparedStatements: false` (createDb's `preparedStatements`) runs the same text
 * unnamed, for poolers that cannot keep a session's prepared statements (PgBouncer in transaction
 * mode before 1.21).
 */
export interface PreparedStatement {
  name: string;
  text: string;
}

// Keyed by the knex client's config, which a transaction's client shares with its pool's.
const unnamed = new WeakSet<object>();

/** createDb calls this when prepared statements are switched off. */
export function disablePreparedStatements(db: Db): void {
  unnamed.add(db.client.config);
}

interface PgConnection {
  query(config: { name?: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

/**
 * Runs `statement` on a pool connection, or on the transaction's own connection when `db` is a
 * knex transaction (its client hands out that connection and never releases it).
 */
export async function runPrepared<Row>(db: Db, statement: PreparedStatement, values: unknown[]): Promise<Row[]> {
  const trx = db as unknown as Partial<Knex.Transaction>;
  if (trx.isCompleted?.()) throw new Error(`transaction already finished; cannot run ${statement.name}`);
  // knex's 'query' event, as db.raw would emit it (it reaches the instance's and the transaction's listeners).
  db.client.emit('query', { method: 'raw', sql: statement.text, bindings: values, prepared: statement.name });
  const connection = (await db.client.acquireConnection()) as PgConnection;
  try {
    const config = unnamed.has(db.client.config)
      ? { text: statement.text, values }
      : { name: statement.name, text: statement.text, values };
    return (await connection.query(config)).rows as Row[];
  } finally {
    // A connection that failed is marked by knex's error handler and dropped by the pool's validation.
    await db.client.releaseConnection(connection);
  }
}
