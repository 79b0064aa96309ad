import type { Knex } from 'knex';
import type { Db } from './createDb';
import { InvariantError } from '@walletd/plugin-kit';

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
  /**
   * For queue statements (the outbox's claim and record): keep one generic plan per connection,
   * built on its first run with sequential scans disabled, so it walks the indexes however small
   * the table looked then. Why: a plan is made with the statistics of the moment; a queue table
   * that was empty when a dispatcher connected (a fresh install, a truncated bench) got a plan
   * scanning the whole table, and kept it while the table grew faster than autovacuum's ANALYZE
   * ran — each claim then read every delivery ever made (2.6 ms per claim of 4 rows at 3,000 rows,
   * issue 17, auto_explain in bench/README.md). An ANALYZE invalidates the plan and PostgreSQL
   * replans with the fresh statistics and the session's normal settings: write such a statement
   * so that every table but the queue's index walk is read by key (arrays, lateral lookups; see
   * the outbox's claim), and a replan cannot turn it into a scan. Sorts and bitmap scans
   * are off too while it is built: with a backlog the statistics never saw, a bitmap scan of every
   * due row and a sort was planned for a claim of 31 (12 ms per claim at 12,000 pending).
   */
  indexPlan?: boolean;
  /**
   * Run on the statement's generic plan, made once per connection, never on one made for the
   * values (`plan_cache_mode = force_generic_plan` around each run, reset after it: two round
   * trips of a few tens of µs; once per connection on a pool under keepGenericPlans). For a statement over the month partitions with no month to prune
   * to when it is planned (the transaction list pages, issue 32): planning it costs a branch per
   * month kept (2–7 ms a page at 28 months against < 2 ms of execution), and PostgreSQL's own rule
   * (keep the generic plan when it costs no more than the plans made for the values) kept planning
   * pages whose values made a fresh plan look cheaper (a cursor's time, a wallet's statistics).
   * Write such a statement so that its generic plan is right for every value: literal LIMITs,
   * bounds partition pruning can use at run time, and the columns its index must lead with.
   * The scan settings stay as they are (bitmap scans serve the searches). Setting it only for a
   * first run would not hold: PostgreSQL reads the setting at every run, and in the default mode
   * plans the first five runs afresh whatever plan it kept.
   */
  genericPlan?: boolean;
}

/** Per connection: the statements whose index plan is built (so later runs skip the settings). */
const indexPlanned = new WeakMap<object, Set<string>>();

// Keyed by the knex client's config, which a transaction's client shares with its pool's.
const unnamed = new WeakSet<object>();

/** Connections a `genericPlan` run left in `force_generic_plan` (pools under keepGenericPlans). */
const genericAtRest = new WeakSet<object>();
/** Per pool under keepGenericPlans (keyed like `unnamed`): its acquire that leaves the mode as it is. */
const acquireAsIs = new WeakMap<object, () => Promise<unknown>>();

/**
 * For a pool whose statements are mostly `genericPlan` ones (the history reads: the list pages):
 * a `genericPlan` run leaves `plan_cache_mode = force_generic_plan` on its connection, so the next
 * one on that connection sends no SET, and anything else taking the connection from the pool (a
 * search, a knex query, a transaction) gets it reset to the default first. Why: the SET and the
 * RESET around each page were two more round trips, ~110 µs of CPU per `GET /v1/transactions`
 * (bench/README.md, `api`). Not for a pool behind PgBouncer in transaction mode, where a session
 * setting would reach other clients (historyReadsPool.ts: only with `readLimitsAtConnect`).
 */
export function keepGenericPlans(db: Db): void {
  const client = db.client as { config: object; acquireConnection(): Promise<unknown>; releaseConnection(c: unknown): Promise<unknown> };
  const acquire = client.acquireConnection.bind(client);
  acquireAsIs.set(client.config, acquire);
  client.acquireConnection = async () => {
    const connection = await acquire();
    if (!genericAtRest.has(connection as object)) return connection;
    genericAtRest.delete(connection as object);
    try {
      await (connection as PgConnection).query({ text: 'reset plan_cache_mode' });
    } catch (e) {
      await client.releaseConnection(connection);
      throw e;
    }
    return connection;
  };
}

/** createDb calls this when prepared statements are switched off. */
export function disablePreparedStatements(db: Db): void {
  unnamed.add(db.client.config);
}

interface PgConnection {
  /** Without `values`, pg sends the simple protocol (several statements in one text). */
  query(config: { name?: string; text: string; values?: unknown[] }): Promise<{ rows: unknown[] }>;
}

/**
 * Runs `statement` on a pool connection, or on the transaction's own connection when `db` is a
 * knex transaction (its client hands out that connection and never releases it).
 */
export async function runPrepared<Row>(db: Db, statement: PreparedStatement, values: unknown[]): Promise<Row[]> {
  const trx = db as unknown as Partial<Knex.Transaction>;
  if (trx.isCompleted?.()) throw new InvariantError(`transaction already finished; cannot run ${statement.name}`);
  // knex's 'query' event, as db.raw would emit it (it reaches the instance's and the transaction's listeners).
  db.client.emit('query', {
    method: 'raw',
    sql: statement.text,
    bindings: values,
    prepared: statement.name,
    ...(statement.genericPlan ? { genericPlan: true } : {}),
  });
  // Outside a transaction, on a pool under keepGenericPlans: the connection as the last run left it.
  const asIs = statement.genericPlan && trx.isCompleted === undefined ? acquireAsIs.get(db.client.config) : undefined;
  const connection = (await (asIs ? asIs() : db.client.acquireConnection())) as PgConnection;
  try {
    if (unnamed.has(db.client.config)) return (await connection.query({ text: statement.text, values })).rows as Row[];
    const config = { name: statement.name, text: statement.text, values };
    if (asIs) {
      if (!genericAtRest.has(connection)) {
        await connection.query({ text: 'set plan_cache_mode = force_generic_plan' });
        genericAtRest.add(connection);
      }
      return (await connection.query(config)).rows as Row[];
    }
    // A connection an indexPlan statement ran on keeps force_generic_plan for good (below): a
    // RESET after this run would take it from those statements too.
    if (statement.genericPlan && indexPlanned.has(connection)) return (await connection.query(config)).rows as Row[];
    if (statement.genericPlan) return await onGenericPlan<Row>(connection, config);
    if (!statement.indexPlan || indexPlanned.get(connection)?.has(statement.name)) return (await connection.query(config)).rows as Row[];
    // Session-wide: a named statement on this connection keeps its generic plan from the first
    // run (PostgreSQL's default plans five times afresh first, and kept whichever plan looked
    // cheaper at the sixth: unstable). The scan settings only while this plan is built: no
    // sequential or bitmap scan and no sort, so an ordered LIMIT walks its index and stops.
    await connection.query({
      text: 'set plan_cache_mode = force_generic_plan; set enable_seqscan = off; set enable_bitmapscan = off; set enable_sort = off',
    });
    let rows: Row[];
    try {
      rows = (await connection.query(config)).rows as Row[];
    } finally {
      // In a transaction that failed, the SETs are undone by its rollback and this reset fails too.
      await connection.query({ text: 'reset enable_seqscan; reset enable_bitmapscan; reset enable_sort' }).catch(() => undefined);
    }
    const names = indexPlanned.get(connection) ?? new Set<string>();
    names.add(statement.name);
    indexPlanned.set(connection, names);
    return rows;
  } finally {
    // A connection that failed is marked by knex's error handler and dropped by the pool's validation.
    await db.client.releaseConnection(connection);
  }
}

async function onGenericPlan<Row>(connection: PgConnection, config: { name: string; text: string; values: unknown[] }): Promise<Row[]> {
  await connection.query({ text: 'set plan_cache_mode = force_generic_plan' });
  try {
    return (await connection.query(config)).rows as Row[];
  } finally {
    // In a transaction that failed, its rollback undoes the SET and this reset fails too.
    await connection.query({ text: 'reset plan_cache_mode' }).catch(() => undefined);
  }
}
