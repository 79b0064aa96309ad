import type { Knex } from 'knex';
import { rebuildTable } from '../partitionByMonth';

/**
 * Retention (issue 32).
 *
 * `events` and `transfers` are range-partitioned by month of `created_at`, so an operator can
 * detach and archive old months (docs/operate/retention.md); months ahead are
 * created here and by the dispatcher (`ensureMonthPartitions`), with a DEFAULT partition so an
 * insert never fails. A partitioned table's unique keys must contain `created_at`:
 * - `events`: primary key (id, created_at), unique (seq, created_at); ids are UUIDs and seq a
 *   sequence, so each stays unique by construction. `webhook_deliveries.event_id` loses its
 *   foreign key (it would need the event's `created_at` too, and would forbid detaching a month
 *   while old deliveries name its events): deliveries are made from events only, and pruned after
 *   `webhooks.deliveryRetentionDays`.
 * - `transfers`: primary key (id, created_at). The exactly-once key (chain, network, tx key, event
 *   index) cannot contain `created_at` (the same transfer seen again has another), so it lives in
 *   `transfer_keys`, a plain table with that primary key, kept by a trigger on every insert and key
 *   change of `transfers`: a second transfer with a known key fails as the unique constraint did
 *   (23505), in whatever month it would land. Keys stay when a month is detached: a rescan of an
 *   archived block finds its transfer known and credits nothing again.
 *
 * `webhook_deliveries`: every delivered row leaves dead entries in the pending rows' partial
 * indexes (`due_by_webhook`, `in_flight`, `one_pending`), which the dispatcher's claim walks until a
 * vacuum removes them. Autovacuum's default trigger is 50 + 20% of the table's rows dead: 400k rows
 * at 1M transfers (2M deliveries), and the claim that first meets them took a second (bench/README.md,
 * "Dispatcher claim between vacuums"). A fixed trigger keeps that bound the same at any size. Each
 * vacuum is small: the heap pages it visits are the recently written ones (the rest are
 * all-visible), and while the dead rows sit on under 2% of the pages PostgreSQL skips the index pass
 * (the claim's own scans mark the remaining entries dead). No fillfactor: the claim and the record
 * both change indexed columns (`next_attempt_at`, `leased`, `status`), so neither update is HOT.
 *
 * `member_sign_in_failures`: one row per failed (email, IP) pair, a working table that grew with
 * every failed sign-in; the sign-in path deletes the rows whose window ended (signInThrottle.ts),
 * found on this index.
 */
export const DELIVERY_AUTOVACUUM_THRESHOLD = 5000;

const TRANSFER_KEY = `
  CREATE FUNCTION walletd_transfer_key() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE n int;
  BEGIN
    IF TG_OP = 'UPDATE' AND (NEW.chain, NEW.network, NEW.tx_key, NEW.event_index) IS NOT DISTINCT FROM
                            (OLD.chain, OLD.network, OLD.tx_key, OLD.event_index) THEN
      -- Same key; a row moved to another month only changes where its key points.
      UPDATE transfer_keys SET created_at = NEW.created_at
       WHERE chain = NEW.chain AND network = NEW.network AND tx_key = NEW.tx_key AND event_index = NEW.event_index
         AND transfer_id = NEW.id AND created_at IS DISTINCT FROM NEW.created_at;
      RETURN NULL;
    END IF;
    IF TG_OP = 'UPDATE' THEN
      DELETE FROM transfer_keys
       WHERE chain = OLD.chain AND network = OLD.network AND tx_key = OLD.tx_key AND event_index = OLD.event_index AND transfer_id = OLD.id;
    END IF;
    -- The same transfer again (a row moved between months arrives as an insert) is its own key.
    INSERT INTO transfer_keys AS k (chain, network, tx_key, event_index, transfer_id, created_at)
    VALUES (NEW.chain, NEW.network, NEW.tx_key, NEW.event_index, NEW.id, NEW.created_at)
    ON CONFLICT (chain, network, tx_key, event_index) DO UPDATE SET created_at = EXCLUDED.created_at
      WHERE k.transfer_id = EXCLUDED.transfer_id;
    GET DIAGNOSTICS n = ROW_COUNT;
    IF n = 0 THEN
      RAISE EXCEPTION 'duplicate key value violates unique constraint "transfer_keys_pkey"'
        USING ERRCODE = 'unique_violation', CONSTRAINT = 'transfer_keys_pkey',
              DETAIL = format('Key (chain, network, tx_key, event_index)=(%s, %s, %s, %s) already exists.',
                              NEW.chain, NEW.network, NEW.tx_key, NEW.event_index);
    END IF;
    RETURN NULL;
  END $$`;

export async function up(knex: Knex): Promise<void> {
  await rebuildTable(knex, {
    table: 'events',
    partitioned: true,
    dropReferences: ['webhook_deliveries_event_id_foreign'],
    constraints: [
      { name: 'events_pkey', kind: 'primary key', columns: ['id', 'created_at'] },
      { name: 'events_seq_unique', kind: 'unique', columns: ['seq', 'created_at'] },
    ],
  });
  await rebuildTable(knex, {
    table: 'transfers',
    partitioned: true,
    dropReferences: [],
    constraints: [{ name: 'transfers_pkey', kind: 'primary key', columns: ['id', 'created_at'] }],
    // The key's lookups (retractChanged, rejectDetached…) read this, one probe per month.
    extraIndexes: [['transfers_by_key', 'transfers (chain, network, tx_key, event_index)']],
  });
  await knex.raw(`CREATE TABLE transfer_keys (
    chain text NOT NULL, network text NOT NULL, tx_key text NOT NULL, event_index integer NOT NULL,
    transfer_id bigint NOT NULL, created_at timestamptz NOT NULL,
    CONSTRAINT transfer_keys_pkey PRIMARY KEY (chain, network, tx_key, event_index))`);
  await knex.raw('INSERT INTO transfer_keys SELECT chain, network, tx_key, event_index, id, created_at FROM transfers');
  await knex.raw(TRANSFER_KEY);
  await knex.raw(
    'CREATE TRIGGER transfers_key AFTER INSERT OR UPDATE OF chain, network, tx_key, event_index, created_at ON transfers FOR EACH ROW EXECUTE FUNCTION walletd_transfer_key()',
  );
  await knex.raw(
    `ALTER TABLE webhook_deliveries SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = ${DELIVERY_AUTOVACUUM_THRESHOLD})`,
  );
  await knex.raw('CREATE INDEX member_sign_in_failures_window ON member_sign_in_failures (window_started_at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS member_sign_in_failures_window');
  await knex.raw('ALTER TABLE webhook_deliveries RESET (autovacuum_vacuum_scale_factor, autovacuum_vacuum_threshold)');
  await knex.raw('DROP TRIGGER transfers_key ON transfers');
  await knex.raw('DROP FUNCTION walletd_transfer_key()');
  await knex.raw('DROP TABLE transfer_keys');
  await rebuildTable(knex, {
    table: 'transfers',
    partitioned: false,
    dropReferences: [],
    constraints: [
      { name: 'transfers_pkey', kind: 'primary key', columns: ['id'] },
      { name: 'transfers_chain_network_tx_key_event_index_unique', kind: 'unique', columns: ['chain', 'network', 'tx_key', 'event_index'] },
    ],
  });
  await knex.raw('DROP INDEX transfers_by_key');
  await rebuildTable(knex, {
    table: 'events',
    partitioned: false,
    dropReferences: [],
    constraints: [
      { name: 'events_pkey', kind: 'primary key', columns: ['id'] },
      { name: 'events_seq_unique', kind: 'unique', columns: ['seq'] },
    ],
  });
  await knex.raw(
    'ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_event_id_foreign FOREIGN KEY (event_id) REFERENCES events(id) ON DELETE CASCADE',
  );
}
