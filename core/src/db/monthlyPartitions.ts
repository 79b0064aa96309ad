import type { Knex } from 'knex';

/**
 * `events` and `transfers` are range-partitioned by month of `created_at` (migration 027), so an
 * operator can detach and archive a month (docs/operate/retention.md). A row
 * whose month has no partition lands in the table's DEFAULT partition, so an insert never fails;
 * this creates the months ahead before they come, so the default stays empty (a month cannot be
 * created while the default holds rows of it: PostgreSQL refuses, and the month is reported).
 */
export const PARTITIONED_TABLES = ['transfers', 'events'] as const;

/** Months created ahead of the current one. */
export const MONTHS_AHEAD = 3;

/** `transfers_y2026m11`: the partition of the month that starts at `start` (UTC). */
export const monthPartitionName = (table: string, start: Date): string =>
  `${table}_y${start.getUTCFullYear()}m${String(start.getUTCMonth() + 1).padStart(2, '0')}`;

const monthStart = (d: Date): Date => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
const nextMonth = (d: Date): Date => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1));

export interface PartitionsMade {
  created: string[];
  /** Months PostgreSQL refused (rows of that month already in the default partition), with why. */
  refused: { name: string; error: string }[];
}

/**
 * Creates every missing month partition of `table` from the month of `from` (default: now) to
 * `MONTHS_AHEAD` months after the current one, and the default partition. A month detached by an
 * operator (its table kept or dropped) is created again only if it is within that span.
 */
export async function ensureMonthPartitions(
  db: Knex | Knex.Transaction,
  table: (typeof PARTITIONED_TABLES)[number],
  options: { from?: Date; now?: Date; monthsAhead?: number } = {},
): Promise<PartitionsMade> {
  const now = options.now ?? new Date();
  let until = monthStart(now);
  for (let i = 0; i <= (options.monthsAhead ?? MONTHS_AHEAD); i++) until = nextMonth(until);
  const made: PartitionsMade = { created: [], refused: [] };
  const attached = new Set(
    (
      await db.raw(`select c.relname from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = ?::regclass`, [table])
    ).rows.map((r: { relname: string }) => r.relname),
  );
  if (!attached.has(`${table}_default`)) {
    await db.raw(`create table if not exists ${table}_default partition of ${table} default`);
    made.created.push(`${table}_default`);
  }
  for (let start = monthStart(options.from ?? now); start < until; start = nextMonth(start)) {
    const name = monthPartitionName(table, start);
    if (attached.has(name)) continue;
    try {
      // A savepoint where the caller runs in a transaction: one month refused leaves the others.
      await (db.isTransaction ? (db as Knex.Transaction) : db).transaction(async (trx) => {
        // DDL takes no parameters: the bounds are ISO strings this function made, never input.
        await trx.raw(
          `create table ${name} partition of ${table} for values from ('${start.toISOString()}') to ('${nextMonth(start).toISOString()}')`,
        );
      });
      made.created.push(name);
    } catch (err) {
      made.refused.push({ name, error: (err as Error).message });
    }
  }
  return made;
}
