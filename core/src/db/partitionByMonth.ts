import type { Knex } from 'knex';
import { ensureMonthPartitions, type PARTITIONED_TABLES } from './monthlyPartitions';
import { BaseError } from '@walletd/plugin-kit';

export interface Rebuild {
  table: (typeof PARTITIONED_TABLES)[number] | string;
  /** The primary key and unique constraints of the rebuilt table: [name, columns]. */
  constraints: { name: string; kind: 'primary key' | 'unique'; columns: string[] }[];
  /** Foreign keys from other tables to this one that are dropped (by name; any other one stops the migration). */
  dropReferences: string[];
  /** Partitioned by month of `created_at`, or a plain table again (the way down). */
  partitioned: boolean;
  /** Non-unique indexes to add beyond the ones the table had. */
  extraIndexes?: [name: string, definition: string][];
}

interface Captured {
  indexes: string[];
  foreignKeys: [string, string][];
  triggers: string[];
  sequences: [sequence: string, column: string][];
}

async function capture(knex: Knex, table: string): Promise<Captured> {
  const indexes = (
    await knex.raw(
      `select pg_get_indexdef(i.indexrelid) as def from pg_index i
        where i.indrelid = ?::regclass and not i.indisunique and not i.indisprimary
          and i.indexrelid not in (select conindid from pg_constraint where conrelid = ?::regclass)`,
      [table, table],
    )
  ).rows // A partitioned table's own index reads `ON ONLY t`; recreated, it is meant for every partition.
    .map((r: { def: string }) => r.def.replace(' ON ONLY ', ' ON '));
  const foreignKeys = (
    await knex.raw(`select conname, pg_get_constraintdef(oid) as def from pg_constraint where conrelid = ?::regclass and contype = 'f'`, [
      table,
    ])
  ).rows.map((r: { conname: string; def: string }) => [r.conname, r.def]);
  const triggers = (
    await knex.raw(`select pg_get_triggerdef(oid) as def from pg_trigger where tgrelid = ?::regclass and not tgisinternal`, [table])
  ).rows.map((r: { def: string }) => r.def);
  const sequences = (
    await knex.raw(
      `select pg_get_serial_sequence(?, a.attname) as seq, a.attname from pg_attribute a
        where a.attrelid = ?::regclass and a.attnum > 0 and not a.attisdropped and pg_get_serial_sequence(?, a.attname) is not null`,
      [table, table, table],
    )
  ).rows.map((r: { seq: string; attname: string }) => [r.seq, r.attname]);
  return { indexes, foreignKeys, triggers, sequences };
}

/**
 * Rebuilds `table` as a table partitioned by month of `created_at` (or back to a plain one): the
 * same columns, defaults and checks, every row, its sequences re-owned, its non-unique indexes,
 * foreign keys and triggers recreated from the catalog (so an index or trigger another migration
 * added comes along), and the keys given. A unique key of a partitioned table must contain
 * `created_at`: the caller decides what replaces one that cannot (transfer_keys, for transfers).
 * A foreign key from another table to this one cannot follow (it would need `created_at` too):
 * those named are dropped, any other stops the migration rather than vanishing unnoticed.
 */
export async function rebuildTable(knex: Knex, r: Rebuild): Promise<void> {
  const { table } = r;
  const references = (
    await knex.raw(
      `select conname, conrelid::regclass::text as source from pg_constraint where confrelid = ?::regclass and contype = 'f'`,
      [table],
    )
  ).rows as { conname: string; source: string }[];
  const unknown = references.filter((f) => !r.dropReferences.includes(f.conname));
  if (unknown.length > 0)
    throw new BaseError(
      'setup_failed',
      `walletd: ${table} cannot be rebuilt while ${unknown.map((f) => `${f.source}.${f.conname}`).join(', ')} references it by a foreign key`,
    );
  for (const f of references) await knex.raw(`alter table ${f.source} drop constraint ${f.conname}`);
  const c = await capture(knex, table);
  const old = `${table}_before_027`;
  await knex.raw(`alter table ${table} rename to ${old}`);
  await knex.raw(
    `create table ${table} (like ${old} including defaults including constraints including storage including generated)
     ${r.partitioned ? 'partition by range (created_at)' : ''}`,
  );
  if (r.partitioned) {
    const { rows } = await knex.raw(`select min(created_at) as first from ${old}`);
    await ensureMonthPartitions(knex, table as (typeof PARTITIONED_TABLES)[number], { from: rows[0].first ?? undefined });
  }
  await knex.raw(`insert into ${table} select * from ${old}`);
  for (const [sequence, column] of c.sequences) await knex.raw(`alter sequence ${sequence} owned by ${table}.${column}`);
  await knex.raw(`drop table ${old}`);
  for (const k of r.constraints) await knex.raw(`alter table ${table} add constraint ${k.name} ${k.kind} (${k.columns.join(', ')})`);
  for (const def of c.indexes) await knex.raw(def);
  for (const [name, definition] of r.extraIndexes ?? []) await knex.raw(`create index if not exists ${name} on ${definition}`);
  for (const [name, def] of c.foreignKeys) await knex.raw(`alter table ${table} add constraint ${name} ${def}`);
  for (const def of c.triggers) await knex.raw(def);
  await knex.raw(`analyze ${table}`);
}
