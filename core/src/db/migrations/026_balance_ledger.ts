import type { Knex } from 'knex';

/**
 * The balance ledger (issue 32): running totals per wallet, address and asset, so a balance read or
 * a funds check is one row per asset instead of a sum over the wallet's whole history.
 *
 * `balance_ledger` holds, for `address` '' (the whole wallet) and for each address that moved money:
 * `confirmed` (confirmed deposits, plus confirmed internal movements in, minus confirmed payouts and
 * fees paid), `pending` (detected deposits not yet final) and `reserved` (amounts and fee caps of
 * withdrawals in `prepared`, `signed` or `broadcast`); `available` = confirmed − reserved.
 * Fees are paid in the chain's native asset, whose key the database does not know (the plugins
 * declare it): they are kept under the asset key `fee` and added to the native asset when read.
 *
 * The totals are kept by statement triggers on `transfers` and `withdrawals`: each statement adds
 * what its new rows contribute and takes away what its old rows did, in the statement's own
 * transaction. A row's contribution is a function of the row alone, so a replayed round, a retried
 * insert that conflicts, or a status that moves and moves back each count exactly once, whichever
 * path (indexer, API, CLI) wrote it. `x = x + delta` under the row lock of an upsert: two
 * processes never lose an increment. No foreign key to `wallets`: a company's deletion cascades
 * through transfers, whose delete trigger must not fail on the wallet already gone.
 *
 * The backfill runs under SHARE locks on both tables so no write lands between it and the triggers.
 */
const RESERVING = `('prepared', 'signed', 'broadcast')`;

/** Per ledger key, what rows of `rel` (a table or a transition table) contribute, times `sign`. */
function transferRows(rel: string, sign: string): string {
  return `select t.wallet_id, s.address, t.asset_key,
            ${sign} * case when t.status = 'confirmed' then t.amount else 0 end as confirmed,
            ${sign} * case when t.status = 'pending' then t.amount else 0 end as pending,
            0::numeric as reserved
       from ${rel} t left join addresses a on a.id = t.address_id
       cross join lateral (values (''::text), (a.address)) s(address)
      where t.direction = 'incoming' and t.status in ('confirmed', 'pending') and s.address is not null`;
}

function withdrawalRows(rel: string, sign: string): string {
  const paid = `case when w.status = 'confirmed' then -w.amount else 0 end`;
  const held = `case when w.status in ${RESERVING} then w.amount else 0 end`;
  const feePaid = `case when w.status in ('confirmed', 'rejected') then -coalesce(w.fee, 0) else 0 end`;
  const feeHeld = `case when w.status in ${RESERVING} then coalesce((w.unsigned_tx->>'fee')::numeric, 0) else 0 end`;
  const internal = `case when w.status = 'confirmed' then w.internal_amount else 0 end`;
  return `select w.wallet_id, s.address, s.asset_key, ${sign} * s.confirmed as confirmed, 0::numeric as pending,
            ${sign} * s.reserved as reserved
       from ${rel} w left join addresses ta on ta.id = w.to_address_id
       cross join lateral (values
         (''::text, w.asset_key, ${paid}, ${held}),
         (w.from_address, w.asset_key, ${paid}, ${held}),
         ('', 'fee', ${feePaid}, ${feeHeld}),
         (w.source_addresses[array_length(w.source_addresses, 1)], 'fee', ${feePaid}, ${feeHeld}),
         ('', w.asset_key, ${internal}, 0),
         (ta.address, w.asset_key, ${internal}, 0)
       ) s(address, asset_key, confirmed, reserved)
      where s.address is not null and (s.confirmed <> 0 or s.reserved <> 0)`;
}

/** Adds the summed contributions of `parts` to the ledger, keys in order (two writers lock rows alike). */
function applyDeltas(parts: string[]): string {
  return `insert into balance_ledger as l (wallet_id, address, asset_key, confirmed, pending, reserved)
    select wallet_id, address, asset_key, sum(confirmed), sum(pending), sum(reserved)
      from (${parts.join(' union all ')}) d
     group by wallet_id, address, asset_key
    having sum(confirmed) <> 0 or sum(pending) <> 0 or sum(reserved) <> 0
     order by wallet_id, address, asset_key
    on conflict (wallet_id, address, asset_key) do update
       set confirmed = l.confirmed + excluded.confirmed, pending = l.pending + excluded.pending,
           reserved = l.reserved + excluded.reserved, updated_at = now()`;
}

type Rows = (rel: string, sign: string) => string;

async function ledgerTriggers(knex: Knex, table: string, rows: Rows): Promise<void> {
  const ops: [string, string, string[]][] = [
    ['insert', 'new table as new_rows', [rows('new_rows', '1')]],
    ['update', 'old table as old_rows new table as new_rows', [rows('new_rows', '1'), rows('old_rows', '-1')]],
    ['delete', 'old table as old_rows', [rows('old_rows', '-1')]],
  ];
  for (const [op, referencing, parts] of ops) {
    const fn = `walletd_ledger_${table}_${op}`;
    await knex.raw(`CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        ${applyDeltas(parts)};
        RETURN NULL;
      END $$`);
    await knex.raw(
      `CREATE TRIGGER ${table}_ledger_${op} AFTER ${op.toUpperCase()} ON ${table} REFERENCING ${referencing} FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`,
    );
  }
}

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('balance_ledger', (t) => {
    t.integer('wallet_id').notNullable();
    t.text('address').notNullable();
    t.text('asset_key').notNullable();
    t.specificType('confirmed', 'numeric(78,0)').notNullable().defaultTo(0);
    t.specificType('pending', 'numeric(78,0)').notNullable().defaultTo(0);
    t.specificType('reserved', 'numeric(78,0)').notNullable().defaultTo(0);
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['wallet_id', 'address', 'asset_key']);
  });
  await knex.raw('ALTER TABLE balance_ledger ADD COLUMN available numeric(78,0) GENERATED ALWAYS AS (confirmed - reserved) STORED');
  await knex.raw('LOCK TABLE transfers, withdrawals IN SHARE MODE');
  await ledgerTriggers(knex, 'transfers', transferRows);
  await ledgerTriggers(knex, 'withdrawals', withdrawalRows);
  await knex.raw(applyDeltas([transferRows('transfers', '1'), withdrawalRows('withdrawals', '1')]));
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['transfers', 'withdrawals'])
    for (const op of ['insert', 'update', 'delete']) {
      await knex.raw(`DROP TRIGGER IF EXISTS ${table}_ledger_${op} ON ${table}`);
      await knex.raw(`DROP FUNCTION IF EXISTS walletd_ledger_${table}_${op}()`);
    }
  await knex.schema.dropTableIfExists('balance_ledger');
}
