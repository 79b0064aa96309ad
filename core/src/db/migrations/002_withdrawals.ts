import type { Knex } from 'knex';

/**
 * What withdrawals need beyond 001: the asset as it was when prepared (a token later removed from
 * the config still reports right), the block that included the transaction (so its disappearance
 * reads as a reorg), who signed, and guards in the database itself: an intent cannot be edited
 * after it is recorded, and a signed transaction can never be replaced (at most one send).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('withdrawals', (t) => {
    t.jsonb('asset');
    t.specificType('source_indexes', 'integer[]');
    t.text('signed_by');
    t.timestamp('signed_at', { useTz: true });
    t.bigInteger('block_number');
    t.text('last_error');
  });
  await knex.raw(`CREATE INDEX withdrawals_tracked ON withdrawals (chain, network, id) WHERE status IN ('signed', 'broadcast')`);
  // One transaction pays one withdrawal: a mined transaction cannot be offered again for another.
  await knex.raw(
    'CREATE UNIQUE INDEX withdrawals_tx_hash_unique ON withdrawals (chain, network, lower(tx_hash)) WHERE tx_hash IS NOT NULL',
  );
  await knex.raw(`CREATE INDEX withdrawals_volume ON withdrawals (wallet_id, asset_key, created_at)`);
  await knex.schema.alterTable('withdrawal_requests', (t) => {
    t.text('idempotency_key');
    t.text('intent_hash');
    t.text('last_error');
    t.timestamp('decided_at', { useTz: true });
    t.unique(['company_id', 'idempotency_key']);
  });
  await knex.raw(`
    CREATE FUNCTION walletd_withdrawal_guard() RETURNS trigger LANGUAGE plpgsql AS $$
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
    END $$`);
  await knex.raw('CREATE TRIGGER withdrawals_guard BEFORE UPDATE ON withdrawals FOR EACH ROW EXECUTE FUNCTION walletd_withdrawal_guard()');
  await knex.raw(`
    CREATE FUNCTION walletd_request_guard() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.intent <> OLD.intent OR NEW.wallet_id <> OLD.wallet_id THEN
        RAISE EXCEPTION 'walletd: the intent of withdrawal request % cannot change', OLD.id;
      END IF;
      RETURN NEW;
    END $$`);
  await knex.raw(
    'CREATE TRIGGER withdrawal_requests_guard BEFORE UPDATE ON withdrawal_requests FOR EACH ROW EXECUTE FUNCTION walletd_request_guard()',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS withdrawal_requests_guard ON withdrawal_requests');
  await knex.raw('DROP TRIGGER IF EXISTS withdrawals_guard ON withdrawals');
  await knex.raw('DROP FUNCTION IF EXISTS walletd_request_guard()');
  await knex.raw('DROP FUNCTION IF EXISTS walletd_withdrawal_guard()');
  await knex.raw('DROP INDEX IF EXISTS withdrawals_volume');
  await knex.raw('DROP INDEX IF EXISTS withdrawals_tx_hash_unique');
  await knex.raw('DROP INDEX IF EXISTS withdrawals_tracked');
  await knex.schema.alterTable('withdrawal_requests', (t) => {
    t.dropUnique(['company_id', 'idempotency_key']);
    t.dropColumns('idempotency_key', 'intent_hash', 'last_error', 'decided_at');
  });
  await knex.schema.alterTable('withdrawals', (t) => {
    t.dropColumns('asset', 'source_indexes', 'signed_by', 'signed_at', 'block_number', 'last_error');
  });
}
