import { BaseError, type Db, monthPartitionName } from '@walletd/core';
import type { Knex } from 'knex';

export const ARCHIVABLE_TABLES = ['transfers', 'events'] as const;
export type ArchivableTable = (typeof ARCHIVABLE_TABLES)[number];

export interface ArchivedTable {
  table: ArchivableTable;
  partition: string;
  /** `archived`: detached now; `already`: an earlier run did it (nothing done again). */
  outcome: 'archived' | 'already';
  rows: number;
}

export interface ArchiveMonthResult {
  month: string;
  tables: ArchivedTable[];
  /** Rows written to `archived_transfer_totals` by this run. */
  totals: number;
}

/** `2025-01` → the month's first instant (UTC), or a 400 naming the expected form. */
export function parseMonth(text: string): Date {
  const m = /^([0-9]{4})-(0[1-9]|1[0-2])$/.exec(text);
  if (!m) throw new BaseError('validation_failed', `month must be YYYY-MM (e.g. 2025-01), got "${text}"`);
  return new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, 1));
}

/**
 * What the month's transfers contribute to the balance ledger, per wallet, address and asset: the
 * same rows and columns as the check's recomputation (checkLedger.ts), '' for no address row; and
 * the latest confirmed deposit's id (the sweep runner's deposit-triggered run, runSweeps.ts).
 */
const RECORD_TOTALS = (partition: string) => `
  insert into archived_transfer_totals (month, wallet_id, address, asset_key, confirmed, pending, last_confirmed_id)
  select cast(:month as date), t.wallet_id, coalesce(a.address, ''), t.asset_key,
         sum(case when t.status = 'confirmed' then t.amount else 0 end),
         sum(case when t.status = 'pending' then t.amount else 0 end),
         max(t.id) filter (where t.status = 'confirmed')
    from ${partition} t left join addresses a on a.id = t.address_id
   where t.direction = 'incoming' and t.status in ('confirmed', 'pending')
   group by t.wallet_id, coalesce(a.address, ''), t.asset_key`;

async function isAttached(trx: Knex.Transaction, table: string, partition: string): Promise<boolean> {
  const { rows } = await trx.raw('select 1 from pg_inherits where inhparent = ?::regclass and inhrelid = to_regclass(?)', [
    table,
    partition,
  ]);
  return rows.length > 0;
}

/** Why the month cannot go yet, or null. Runs under the table's exclusive lock: nothing changes after. */
async function refusal(trx: Knex.Transaction, table: ArchivableTable, partition: string, month: string): Promise<string | null> {
  if (table === 'transfers') {
    const { rows } = await trx.raw(`select count(*)::int as n from ${partition} where status = 'pending'`);
    const n = rows[0].n as number;
    return n === 0
      ? null
      : `month ${month} still holds ${n} pending transfer(s): they can still confirm or be rejected, which the archived totals would miss; archive it once they are final`;
  }
  // Driven from the pending deliveries (few) into the month's primary key: no scan of the month.
  const { rows } = await trx.raw(
    `select count(*)::int as n from webhook_deliveries d
      where d.status = 'pending' and exists (select 1 from ${partition} e where e.id = d.event_id)`,
  );
  const n = rows[0].n as number;
  return n === 0
    ? null
    : `month ${month} has ${n} webhook deliveries still pending: the dispatcher reads their events; archive it once they are delivered or failed`;
}

/**
 * Takes a month of `transfers` and/or `events` out of walletd (docs/operate/retention.md, "What grows and what to do
 * about it"): detaches its partition, leaving a table of its own the operator dumps and drops.
 * One transaction per run: for transfers, the month's contribution to the balance ledger is
 * recorded in `archived_transfer_totals` (the ledger's check adds it to what stays attached) and
 * the detach and the record of it (`archived_months`) commit together, so a crash leaves either
 * nothing or all of it, and a second run finds the month recorded and does nothing again.
 *
 * Refused: the current and the previous month (transfers still confirm there, deliveries still
 * retry); a transfers month holding pending transfers; an events month with a delivery pending
 * (the dispatcher's claim joins the event); a month that has no attached partition (never made,
 * its rows in `*_default`, or detached by hand: walletd cannot know its totals).
 *
 * Reads are not held up by the month's sum (issue 48 §5: a list waited 1.9 s behind an 85k-transfer
 * month when the sum ran under ACCESS EXCLUSIVE). Each table is locked SHARE first: writes to it
 * wait while the month is checked, summed and counted, so nothing can change the month between its
 * sum and the detach, but reads go on. Only then is the lock raised to ACCESS EXCLUSIVE, which
 * DETACH takes anyway, for the detach and the record of it: reads wait for that moment alone
 * (catalog work, milliseconds). A ledger check locks the table ACCESS SHARE
 * before it reads, so it still sees the month's totals and its detach together or neither.
 * `lockTimeoutMs` bounds the wait for each of the two locks (reads that arrive while the raise waits
 * for a long read ahead of it queue behind it for that long).
 */
export async function archiveMonth(
  db: Db,
  input: { month: string; tables: readonly ArchivableTable[]; lockTimeoutMs?: number },
): Promise<ArchiveMonthResult> {
  const start = parseMonth(input.month);
  const month = start.toISOString().slice(0, 10);
  const tables = ARCHIVABLE_TABLES.filter((t) => input.tables.includes(t));
  if (tables.length === 0) throw new BaseError('validation_failed', `tables must name ${ARCHIVABLE_TABLES.join(' and/or ')}`);
  return db.transaction(async (trx) => {
    const lockMs = Math.max(1, Math.floor(input.lockTimeoutMs ?? 5000));
    await trx.raw(`set local lock_timeout = ${lockMs}`);
    const { rows } = await trx.raw(
      `select ?::date < (date_trunc('month', now() at time zone 'UTC') - interval '1 month')::date as old,
              to_char(date_trunc('month', now() at time zone 'UTC') - interval '1 month', 'YYYY-MM') as previous`,
      [month],
    );
    if (!rows[0].old)
      throw new BaseError(
        'conflict',
        `month ${input.month} is too recent: the current and the previous month (${rows[0].previous}) stay attached; archive ${rows[0].previous} or earlier`,
      );
    const result: ArchiveMonthResult = { month: input.month, tables: [], totals: 0 };
    for (const table of tables) {
      const partition = monthPartitionName(table, start);
      const done = await trx('archived_months').where({ table_name: table, month }).first('row_count');
      if (done) {
        result.tables.push({ table, partition, outcome: 'already', rows: Number(done.row_count) });
        continue;
      }
      await trx.raw(`lock table ${table} in share mode`).catch((e: { code?: string }) => {
        if (e.code !== '55P03') throw e;
        throw new BaseError('unavailable', `${table} stayed in use for ${lockMs} ms (lock_timeout): nothing was changed; run it again`);
      });
      if (!(await isAttached(trx, table, partition)))
        throw new BaseError(
          'conflict',
          `${partition} is not an attached partition of ${table} and walletd has not archived it: the month was never made ` +
            `(its rows, if any, are in ${table}_default) or was detached by hand, so its totals are unknown; re-attach it first`,
        );
      const why = await refusal(trx, table, partition, input.month);
      if (why) throw new BaseError('conflict', why);
      if (table === 'transfers') result.totals += (await trx.raw(RECORD_TOTALS(partition), { month })).rowCount ?? 0;
      const count = Number((await trx.raw(`select count(*) as n from ${partition}`)).rows[0].n);
      // SHARE → ACCESS EXCLUSIVE: waits for the reads already running (reads arriving meanwhile
      // queue behind it), at most `lockMs`. A transaction that read the table and now waits to
      // write it (behind the SHARE) is a deadlock PostgreSQL ends within deadlock_timeout (1 s) by
      // failing one side: the indexer retries its round, or this run says to run it again.
      await trx.raw(`lock table ${table} in access exclusive mode`).catch((e: { code?: string }) => {
        if (e.code === '40P01')
          throw new BaseError(
            'unavailable',
            `${table}: a writer that had read it collided with the detach (deadlock): nothing was changed; run it again`,
          );
        if (e.code !== '55P03') throw e;
        throw new BaseError('unavailable', `${table} stayed in use for ${lockMs} ms (lock_timeout): nothing was changed; run it again`);
      });
      // DDL takes no parameters: the name is made from a parsed month, never from input text.
      await trx.raw(`alter table ${table} detach partition ${partition}`);
      await trx('archived_months').insert({ table_name: table, month, partition, row_count: count });
      result.tables.push({ table, partition, outcome: 'archived', rows: count });
    }
    return result;
  });
}
