import type { Knex } from 'knex';

/**
 * The rate-limit counters (spec 8) are written on every API request. They are worth nothing after
 * a crash (a window lasts a minute), so they skip the write-ahead log: an upsert then costs no WAL
 * flush at commit, and PostgreSQL truncates the table after a crash (every counter starts again at
 * zero, which only ever lets a caller through, never refuses one wrongly). Replicas do not carry
 * the table; every API process must use the primary (as all of walletd does).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table rate_limit_hits set unlogged');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table rate_limit_hits set logged');
}
