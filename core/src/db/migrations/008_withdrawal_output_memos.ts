import type { Knex } from 'knex';

/**
 * Memos and destination tags, per output, as part of the intent.
 *
 * They live in each element of `withdrawals.outputs` (and of `withdrawal_requests.intent.outputs`):
 * `{toAddress, amount, memo?, destinationTag?}`. Both columns were already under 002's intent
 * guard; this migration makes that explicit and names the field: the guard functions refuse a
 * changed memo or tag first, with their own message, then anything else of the intent as before.
 * The request guard also compares with IS DISTINCT FROM (002's `<>` let a NULL through). And the
 * database checks the shape it stores: a memo is a string, a tag an integer from 0 to 2^32-1.
 */
const memos = (column: string) => `jsonb_path_query_array(${column}, '$[*].memo')`;
const tags = (column: string) => `jsonb_path_query_array(${column}, '$[*].destinationTag')`;

const WITHDRAWAL_GUARD_002 = `
    CREATE OR REPLACE FUNCTION walletd_withdrawal_guard() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.wallet_id <> OLD.wallet_id OR NEW.asset_key <> OLD.asset_key OR NEW.amount <> OLD.amount
         OR NEW.to_address IS DISTINCT FROM OLD.to_address OR NEW.outputs IS DISTINCT FROM OLD.outputs
         OR NEW.from_address IS DISTINCT FROM OLD.from_address OR NEW.intent_hash <> OLD.intent_hash THEN
        RAISE EXCEPTION 'walletd: the intent of withdrawal % cannot change', OLD.id;
      END IF;
      IF OLD.signed_tx IS NOT NULL AND NEW.signed_tx IS DISTINCT FROM OLD.signed_tx THEN
        RAISE EXCEPTION 'walletd: withdrawal % is already signed; its transaction cannot be replaced', OLD.id;
      END IF;
      RETURN NEW;
    END $$`;

const REQUEST_GUARD_002 = `
    CREATE OR REPLACE FUNCTION walletd_request_guard() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.intent <> OLD.intent OR NEW.wallet_id <> OLD.wallet_id THEN
        RAISE EXCEPTION 'walletd: the intent of withdrawal request % cannot change', OLD.id;
      END IF;
      RETURN NEW;
    END $$`;

/** A jsonb array of outputs whose memos are strings and tags integers in 0..2^32-1 (or absent). */
const wellFormed = (outputs: string) => `
  NOT jsonb_path_exists(${outputs}, '$[*].memo \\? (@.type() != "string")')
  AND NOT jsonb_path_exists(${outputs},
    '$[*].destinationTag \\? (@.type() != "number" || @ < 0 || @ > 4294967295 || @ != @.floor())')`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE OR REPLACE FUNCTION walletd_withdrawal_guard() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF ${memos('NEW.outputs')} IS DISTINCT FROM ${memos('OLD.outputs')}
         OR ${tags('NEW.outputs')} IS DISTINCT FROM ${tags('OLD.outputs')} THEN
        RAISE EXCEPTION 'walletd: the memo and destination tag of withdrawal % cannot change', OLD.id;
      END IF;
      IF NEW.wallet_id <> OLD.wallet_id OR NEW.asset_key <> OLD.asset_key OR NEW.amount <> OLD.amount
         OR NEW.to_address IS DISTINCT FROM OLD.to_address OR NEW.outputs IS DISTINCT FROM OLD.outputs
         OR NEW.from_address IS DISTINCT FROM OLD.from_address OR NEW.intent_hash <> OLD.intent_hash THEN
        RAISE EXCEPTION 'walletd: the intent of withdrawal % cannot change', OLD.id;
      END IF;
      IF OLD.signed_tx IS NOT NULL AND NEW.signed_tx IS DISTINCT FROM OLD.signed_tx THEN
        RAISE EXCEPTION 'walletd: withdrawal % is already signed; its transaction cannot be replaced', OLD.id;
      END IF;
      RETURN NEW;
    END $$`);
  await knex.raw(`
    CREATE OR REPLACE FUNCTION walletd_request_guard() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF ${memos("NEW.intent->'outputs'")} IS DISTINCT FROM ${memos("OLD.intent->'outputs'")}
         OR ${tags("NEW.intent->'outputs'")} IS DISTINCT FROM ${tags("OLD.intent->'outputs'")}
         OR NEW.intent->'memo' IS DISTINCT FROM OLD.intent->'memo'
         OR NEW.intent->'destinationTag' IS DISTINCT FROM OLD.intent->'destinationTag' THEN
        RAISE EXCEPTION 'walletd: the memo and destination tag of withdrawal request % cannot change', OLD.id;
      END IF;
      IF NEW.intent IS DISTINCT FROM OLD.intent OR NEW.wallet_id <> OLD.wallet_id THEN
        RAISE EXCEPTION 'walletd: the intent of withdrawal request % cannot change', OLD.id;
      END IF;
      RETURN NEW;
    END $$`);
  await knex.raw(`ALTER TABLE withdrawals ADD CONSTRAINT withdrawals_output_memos_valid CHECK (${wellFormed('outputs')})`);
  await knex.raw(
    `ALTER TABLE withdrawal_requests ADD CONSTRAINT withdrawal_requests_output_memos_valid CHECK (${wellFormed("intent->'outputs'")})`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE withdrawal_requests DROP CONSTRAINT IF EXISTS withdrawal_requests_output_memos_valid');
  await knex.raw('ALTER TABLE withdrawals DROP CONSTRAINT IF EXISTS withdrawals_output_memos_valid');
  await knex.raw(REQUEST_GUARD_002);
  await knex.raw(WITHDRAWAL_GUARD_002);
}
