import type { Knex } from 'knex';

/**
 * The console's search box (`/console/api/transactions?q=`) takes a hash or an address and ORs
 * the hash with either side's address (and, for a withdrawal, its outputs' recipients). Only the
 * hash had an index (020): the OR made both sides of the list walk the company's whole history
 * by time, filtering (issue 32). With one index per branch PostgreSQL reads them as a BitmapOr:
 * - addresses compared lower-cased: 0x-hex case-insensitively; other encodings (base58, bech32,
 *   TON) match the lower-cased index first and are then compared exactly (transactionList.ts);
 * - a withdrawal's outputs by containment in their lower-cased JSON (jsonb_path_ops: `@>` only).
 */
const INDEXES: [name: string, definition: string][] = [
  ['transfers_from_address_lower', 'transfers (lower(from_address))'],
  ['transfers_to_address_lower', 'transfers (lower(to_address))'],
  ['withdrawals_from_address_lower', 'withdrawals (lower(from_address))'],
  ['withdrawals_to_address_lower', 'withdrawals (lower(to_address))'],
  ['withdrawals_outputs_lower', 'withdrawals using gin ((lower(outputs::text)::jsonb) jsonb_path_ops)'],
];

export async function up(knex: Knex): Promise<void> {
  for (const [name, definition] of INDEXES) await knex.raw(`CREATE INDEX ${name} ON ${definition}`);
}

export async function down(knex: Knex): Promise<void> {
  for (const [name] of [...INDEXES].reverse()) await knex.raw(`DROP INDEX IF EXISTS ${name}`);
}
