import type { Knex } from 'knex';
import { createOperationalTables } from './001_initial_operations';

/**
 * The whole data model the spec implies. Amounts are numeric(78,0) base units (enough for any
 * uint256); ids that the API exposes as integers are serial; events use a UUID plus a global
 * sequence that orders the event feed.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('settings', (t) => {
    t.text('key').primary();
    t.text('value').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('companies', (t) => {
    t.increments('id');
    t.text('name').notNullable();
    t.text('plan').notNullable().defaultTo('none');
    t.text('encryption_public_key');
    t.timestamp('encryption_key_set_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`ALTER TABLE companies ADD CONSTRAINT companies_plan_check CHECK (plan IN ('none','free','paid'))`);

  await knex.schema.createTable('members', (t) => {
    t.increments('id');
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.text('email').notNullable();
    t.text('role').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('removed_at', { useTz: true });
  });
  await knex.raw(`ALTER TABLE members ADD CONSTRAINT members_role_check CHECK (role IN ('owner','admin','developer','viewer'))`);
  await knex.raw(`CREATE UNIQUE INDEX members_company_email ON members (company_id, lower(email)) WHERE removed_at IS NULL`);

  await knex.schema.createTable('api_keys', (t) => {
    t.increments('id');
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.text('key_hash').notNullable().unique();
    t.text('hint').notNullable();
    t.text('name');
    t.specificType('actions', 'text[]').notNullable();
    // NULL means every wallet of the company, including wallets created later.
    t.specificType('wallet_ids', 'integer[]');
    t.specificType('allow_ips', 'text[]');
    t.integer('created_by').references('members.id');
    t.timestamp('expires_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.timestamp('last_used_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('wallets', (t) => {
    t.increments('id');
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('chain').notNullable();
    t.text('network').notNullable();
    t.jsonb('secret_envelope').notNullable();
    t.integer('next_address_index').notNullable().defaultTo(0);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('deleted_at', { useTz: true });
    t.index(['company_id']);
  });

  await knex.schema.createTable('addresses', (t) => {
    t.increments('id');
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.integer('wallet_id').notNullable().references('wallets.id').onDelete('CASCADE');
    t.text('chain').notNullable();
    t.text('network').notNullable();
    t.text('address').notNullable();
    // The form the indexer matches on (lowercase hex on EVM); `address` keeps the display form.
    t.text('match_key').notNullable();
    t.integer('derivation_index').notNullable();
    t.text('derivation_path').notNullable();
    t.text('label');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['chain', 'network', 'match_key']);
    t.unique(['wallet_id', 'derivation_index']);
  });

  await knex.schema.createTable('assets', (t) => {
    t.increments('id');
    t.text('chain').notNullable();
    t.text('network').notNullable();
    t.text('asset_key').notNullable().unique();
    t.text('symbol').notNullable();
    t.integer('decimals').notNullable();
    t.text('contract_address');
    t.boolean('enabled').notNullable().defaultTo(true);
  });

  await knex.schema.createTable('transfers', (t) => {
    t.bigIncrements('id');
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.integer('wallet_id').notNullable().references('wallets.id');
    t.integer('address_id').references('addresses.id');
    t.text('chain').notNullable();
    t.text('network').notNullable();
    t.text('tx_hash').notNullable();
    t.integer('event_index').notNullable();
    t.integer('log_index');
    t.text('direction').notNullable();
    t.text('event_type').notNullable();
    t.text('asset_key').notNullable();
    t.specificType('amount', 'numeric(78,0)').notNullable();
    t.text('from_address');
    t.text('to_address').notNullable();
    t.bigInteger('block_number');
    t.text('block_hash');
    t.text('status').notNullable();
    t.integer('confirmations').notNullable().defaultTo(0);
    t.text('reason');
    t.jsonb('extra');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // A transfer is recorded once, however many times a block is parsed or a rescan runs.
    t.unique(['chain', 'network', 'tx_hash', 'event_index']);
    t.index(['wallet_id', 'created_at']);
    t.index(['tx_hash']);
  });

  await knex.schema.createTable('withdrawal_requests', (t) => {
    t.increments('id');
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.integer('wallet_id').notNullable().references('wallets.id');
    t.jsonb('intent').notNullable();
    t.text('status').notNullable().defaultTo('pending');
    t.integer('proposed_by_key').references('api_keys.id');
    t.integer('proposed_by_member').references('members.id');
    t.integer('required_approvals').notNullable().defaultTo(1);
    t.bigInteger('withdrawal_id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('withdrawal_approvals', (t) => {
    t.increments('id');
    t.integer('request_id').notNullable().references('withdrawal_requests.id').onDelete('CASCADE');
    t.integer('member_id').notNullable().references('members.id');
    t.text('decision').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['request_id', 'member_id']);
  });

  await knex.schema.createTable('withdrawals', (t) => {
    t.increments('id');
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.integer('wallet_id').notNullable().references('wallets.id');
    t.integer('request_id').references('withdrawal_requests.id');
    t.text('idempotency_key');
    t.text('intent_hash').notNullable();
    t.text('chain').notNullable();
    t.text('network').notNullable();
    t.text('asset_key').notNullable();
    t.specificType('amount', 'numeric(78,0)').notNullable();
    t.text('to_address');
    t.jsonb('outputs');
    t.text('from_address');
    t.specificType('source_addresses', 'text[]');
    t.text('status').notNullable();
    t.jsonb('unsigned_tx');
    t.text('signed_tx');
    t.text('tx_hash');
    t.specificType('fee', 'numeric(78,0)');
    t.integer('confirmations');
    t.text('reason');
    t.integer('created_by_key').references('api_keys.id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('broadcast_at', { useTz: true });
    t.timestamp('confirmed_at', { useTz: true });
    t.unique(['company_id', 'idempotency_key']);
    t.index(['tx_hash']);
  });

  await knex.schema.createTable('withdrawal_history', (t) => {
    t.bigIncrements('id');
    t.integer('withdrawal_id').notNullable().references('withdrawals.id').onDelete('CASCADE');
    t.text('status').notNullable();
    t.jsonb('details');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('spending_policies', (t) => {
    t.increments('id');
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('kind').notNullable();
    t.jsonb('params').notNullable();
    t.specificType('wallet_ids', 'integer[]');
    t.text('asset_key');
    t.boolean('enabled').notNullable().defaultTo(true);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('webhooks', (t) => {
    t.increments('id');
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.text('type').notNullable();
    // Non-secret config in clear; secret config fields (bot tokens) live in secret_envelope.
    t.jsonb('config').notNullable();
    t.specificType('events', 'text[]').notNullable();
    t.specificType('wallet_ids', 'integer[]').notNullable().defaultTo('{}');
    t.boolean('enabled').notNullable().defaultTo(true);
    t.jsonb('secret_envelope').notNullable();
    t.integer('created_by_key').references('api_keys.id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('deleted_at', { useTz: true });
  });

  await knex.schema.createTable('events', (t) => {
    t.uuid('id').primary();
    t.bigIncrements('seq', { primaryKey: false });
    t.integer('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.text('type').notNullable();
    t.text('chain').notNullable();
    t.text('network').notNullable();
    t.integer('wallet_id');
    // The exact bytes posted to receivers; every retry sends these.
    t.text('body').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['seq']);
  });
  // The writing transaction's id: the event feed pages by (xid, seq) and serves only events of
  // transactions older than every running one, so an event committed late is never skipped.
  await knex.raw(`ALTER TABLE events ADD COLUMN xid xid8 NOT NULL DEFAULT pg_current_xact_id()`);
  await knex.raw(`CREATE INDEX events_company_feed ON events (company_id, xid, seq)`);

  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.bigIncrements('id');
    t.integer('webhook_id').notNullable().references('webhooks.id').onDelete('CASCADE');
    t.uuid('event_id').notNullable().references('events.id').onDelete('CASCADE');
    t.text('event_type').notNullable();
    t.text('status').notNullable().defaultTo('pending');
    t.integer('attempts').notNullable().defaultTo(0);
    t.integer('response_code');
    t.text('last_error');
    t.text('response_body');
    t.timestamp('next_attempt_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['webhook_id', 'id']);
  });
  await knex.raw(`CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`);

  // The audit log, the indexer's cursors and blocks, and the rate limiter (001_initial_operations.ts).
  await createOperationalTables(knex);
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'rate_limit_hits',
    'recent_blocks',
    'chain_cursors',
    'audit_log',
    'webhook_deliveries',
    'events',
    'webhooks',
    'spending_policies',
    'withdrawal_history',
    'withdrawals',
    'withdrawal_approvals',
    'withdrawal_requests',
    'transfers',
    'assets',
    'addresses',
    'wallets',
    'api_keys',
    'members',
    'companies',
    'settings',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
}
