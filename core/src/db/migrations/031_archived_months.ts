import type { Knex } from 'knex';

/**
 * Archived months (issue 32, docs/operate/retention.md). `walletd archive-month`
 * detaches a month of `transfers` (and of `events`) in one transaction; what it took out of the
 * tables the balance ledger's check recomputes from is kept here, so the check stays exact:
 *
 * - `archived_transfer_totals`: per archived month, wallet, address and asset, what the month's
 *   transfers contributed to the ledger (the check's own recomputation: incoming, confirmed or
 *   pending). `address` '' is a transfer with no address row (it counts in the wallet's total
 *   only). The check adds these rows to what the attached transfers sum to. `last_confirmed_id`:
 *   the id of the month's latest confirmed deposit there (ids only grow), which the sweep runner
 *   names a deposit-triggered run by (runSweeps.ts).
 * - `archived_months`: one row per table and month taken out, written in the detaching
 *   transaction: a retry finds it and does nothing again, and re-attaching a month deletes it with
 *   the month's totals (docs/operate/retention.md).
 *
 * A few rows per wallet and asset a month, whatever the month's traffic.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE archived_months (
    table_name text NOT NULL CHECK (table_name IN ('transfers', 'events')),
    month date NOT NULL CHECK (extract(day from month) = 1),
    partition text NOT NULL,
    row_count bigint NOT NULL,
    archived_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (table_name, month))`);
  await knex.raw(`CREATE TABLE archived_transfer_totals (
    month date NOT NULL,
    wallet_id integer NOT NULL,
    address text NOT NULL,
    asset_key text NOT NULL,
    confirmed numeric(78,0) NOT NULL,
    pending numeric(78,0) NOT NULL,
    last_confirmed_id bigint,
    PRIMARY KEY (month, wallet_id, address, asset_key))`);
  // The check reads a batch of wallets' rows.
  await knex.raw('CREATE INDEX archived_transfer_totals_by_wallet ON archived_transfer_totals (wallet_id)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE archived_transfer_totals');
  await knex.raw('DROP TABLE archived_months');
}
