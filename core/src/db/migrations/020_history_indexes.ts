import type { Knex } from 'knex';

/**
 * Reads and indexer rounds bounded by the page or the pending set, not the history (issue 32).
 * Measured at 1M transfers before this: the transactions list 1.5 s (a sort of every transfer on an
 * expression), a hash search 0.7 s (a plain btree on tx_hash, the search compares lower()), the
 * indexer's pending and detached queries 0.5 s each on every round (no index on status).
 * - pages: (company | wallet, time desc, id desc) on both sides of the list's union, the
 *   withdrawals' partial to the states the list shows; the wallet one supersedes (wallet_id,
 *   created_at), whose leading columns it keeps for the policies' volume sums;
 * - hash search: lower(tx_hash) on both sides;
 * - indexer rounds: pending transfers per chain by block (pending, detached = no block, rewind);
 *   every transfer by block for the rewind's count of confirmed ones above the ancestor;
 * - balances: pending and credited sums per wallet and asset read from the index alone (the credited
 *   one still grows with the wallet's history, but reads the index, not the table);
 * - replay: events of a company by time.
 */
const INDEXES: [name: string, definition: string][] = [
  ['transfers_company_page', 'transfers (company_id, created_at desc, id desc)'],
  ['transfers_wallet_page', 'transfers (wallet_id, created_at desc, id desc)'],
  ['transfers_tx_hash_lower', 'transfers (lower(tx_hash))'],
  ['transfers_pending_by_block', `transfers (chain, network, block_number) where status = 'pending'`],
  ['transfers_by_block', 'transfers (chain, network, block_number)'],
  ['transfers_wallet_pending', `transfers (wallet_id, asset_key) include (amount) where status = 'pending' and direction = 'incoming'`],
  ['transfers_wallet_credited', `transfers (wallet_id, asset_key) include (amount) where status = 'confirmed' and direction = 'incoming'`],
  [
    'withdrawals_company_page',
    `withdrawals (company_id, signed_at desc, id desc) where tx_hash is not null and status in ('signed', 'broadcast', 'confirmed', 'rejected')`,
  ],
  [
    'withdrawals_wallet_page',
    `withdrawals (wallet_id, signed_at desc, id desc) where tx_hash is not null and status in ('signed', 'broadcast', 'confirmed', 'rejected')`,
  ],
  ['withdrawals_tx_hash_lower', 'withdrawals (lower(tx_hash))'],
  ['events_company_time', 'events (company_id, created_at)'],
];

export async function up(knex: Knex): Promise<void> {
  for (const [name, definition] of INDEXES) await knex.raw(`CREATE INDEX ${name} ON ${definition}`);
  await knex.raw('DROP INDEX IF EXISTS transfers_wallet_id_created_at_index');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX transfers_wallet_id_created_at_index ON transfers (wallet_id, created_at)');
  for (const [name] of [...INDEXES].reverse()) await knex.raw(`DROP INDEX IF EXISTS ${name}`);
}
