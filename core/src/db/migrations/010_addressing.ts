import type { Knex } from 'knex';

/**
 * Contract v2 addressing in the store (issue 11):
 * - `account` rows: the one account of an account-tag wallet (XRP). Its deposit addresses are the
 *   account plus a destination tag (`destination_tag`, a uint32 the service allocates; the match
 *   key is `<account key>:<tag>`, unique per chain and network like every match key, so a tag is
 *   never handed out twice for one account and, rows never being deleted, never reused).
 * - `token_account` rows: a watched key tied to its owner deposit address and one asset (Solana
 *   associated token accounts, TON jetton wallets). A transfer through one is credited to the
 *   owner, and only for that asset.
 * - `transfers.tx_key`: the transfer's transaction identity where a hash is not unique (Polkadot
 *   `<block>-<extrinsic>`), the tx hash elsewhere; the unique key moves onto it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table addresses drop constraint addresses_kind');
  await knex.raw(`alter table addresses add constraint addresses_kind check (kind in ('deposit', 'change', 'account', 'token_account'))`);
  await knex.schema.alterTable('addresses', (t) => {
    t.bigInteger('destination_tag');
    t.integer('owner_address_id').references('addresses.id');
    t.text('asset_key');
  });
  await knex.raw(`alter table addresses add constraint addresses_destination_tag check (
    destination_tag is null or (destination_tag between 0 and 4294967295 and kind = 'deposit'))`);
  await knex.raw(`alter table addresses add constraint addresses_token_account check (
    (kind = 'token_account') = (owner_address_id is not null and asset_key is not null))`);
  // Token accounts take their owner's derivation index (they have no key of their own), so the
  // per-branch index is unique among keyed rows only; one token account per owner and asset.
  await knex.schema.alterTable('addresses', (t) => {
    t.dropUnique(['wallet_id', 'kind', 'derivation_index']);
  });
  await knex.raw(
    `create unique index addresses_wallet_kind_index on addresses (wallet_id, kind, derivation_index) where kind <> 'token_account'`,
  );
  await knex.raw(`create unique index addresses_owner_asset on addresses (owner_address_id, asset_key) where kind = 'token_account'`);

  await knex.schema.alterTable('transfers', (t) => {
    t.text('tx_key');
  });
  await knex.raw('update transfers set tx_key = tx_hash');
  await knex.raw('alter table transfers alter column tx_key set not null');
  await knex.schema.alterTable('transfers', (t) => {
    t.dropUnique(['chain', 'network', 'tx_hash', 'event_index']);
    t.unique(['chain', 'network', 'tx_key', 'event_index']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('transfers', (t) => {
    t.dropUnique(['chain', 'network', 'tx_key', 'event_index']);
    t.unique(['chain', 'network', 'tx_hash', 'event_index']);
    t.dropColumn('tx_key');
  });
  await knex('addresses').whereIn('kind', ['account', 'token_account']).delete();
  await knex('addresses').whereNotNull('destination_tag').delete();
  await knex.raw('drop index addresses_owner_asset');
  await knex.raw('drop index addresses_wallet_kind_index');
  await knex.schema.alterTable('addresses', (t) => {
    t.unique(['wallet_id', 'kind', 'derivation_index']);
  });
  await knex.raw('alter table addresses drop constraint addresses_token_account');
  await knex.raw('alter table addresses drop constraint addresses_destination_tag');
  await knex.schema.alterTable('addresses', (t) => {
    t.dropColumn('asset_key');
    t.dropColumn('owner_address_id');
    t.dropColumn('destination_tag');
  });
  await knex.raw('alter table addresses drop constraint addresses_kind');
  await knex.raw(`alter table addresses add constraint addresses_kind check (kind in ('deposit', 'change'))`);
}
