import type { Command } from 'commander';
import { ARCHIVABLE_TABLES, type ArchivableTable, archiveMonth } from '../reconciliation/retention/archiveMonth';
import { withRuntime, type GlobalOptions } from './context';
import { intArg, printJson } from './output';
import { BaseError } from '@walletd/core';

function tablesArg(value: string): ArchivableTable[] {
  const names = value.split(',').map((s) => s.trim());
  for (const n of names)
    if (!(ARCHIVABLE_TABLES as readonly string[]).includes(n))
      throw new BaseError('usage_invalid', `--tables takes ${ARCHIVABLE_TABLES.join(', ')} (comma-separated), got "${n}"`);
  return names as ArchivableTable[];
}

/** `walletd archive-month`: the supported way to take an old month out (docs/operate/retention.md). */
export function registerArchive(program: Command): void {
  program
    .command('archive-month')
    .description(
      'detach a month of transfers and events (its balance totals kept for the ledger check); then pg_dump and drop the detached tables',
    )
    .requiredOption('--month <YYYY-MM>', 'the month (UTC) to take out: before the previous month')
    .option('--tables <list>', `which of ${ARCHIVABLE_TABLES.join(', ')} (comma-separated)`, tablesArg, [...ARCHIVABLE_TABLES])
    .option(
      '--lock-timeout-ms <ms>',
      'how long to wait for each table lock before giving up (retry later)',
      intArg('--lock-timeout-ms'),
      5000,
    )
    .action(async (o, cmd) =>
      withRuntime(cmd.optsWithGlobals() as GlobalOptions, async ({ db }) => {
        const result = await archiveMonth(db, { month: o.month, tables: o.tables, lockTimeoutMs: o.lockTimeoutMs });
        printJson(result);
        const detached = result.tables.filter((t) => t.outcome === 'archived').map((t) => t.partition);
        if (detached.length > 0)
          process.stderr.write(
            `detached ${detached.join(', ')}: keep a copy (pg_dump -Fc ${detached.map((p) => `-t ${p}`).join(' ')} DBNAME > walletd-${o.month}.dump), then drop table ${detached.join(', ')}\n`,
          );
      }),
    );
}
