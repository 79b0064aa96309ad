import type { Knex } from 'knex';

/**
 * Polkadot transfers are identified by `<block>-<extrinsic hash>`, no longer `<block>-<extrinsic
 * index>`: at the same height and position another fork's block can hold another extrinsic, and
 * the store took its transfer for the one recorded (it kept the first one's amount and recipient,
 * and the real one was never recorded). Rows already stored get the new form of their own key, so
 * a rescan across the upgrade finds them instead of announcing them a second time.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `update transfers set tx_key = split_part(tx_key, '-', 1) || '-' || tx_hash
     where chain = 'polkadot' and tx_key ~ '^[0-9]+-[0-9]+$'`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(
    `update transfers set tx_key = split_part(tx_key, '-', 1) || '-' || (extra->>'extrinsicIndex')
     where chain = 'polkadot' and tx_key ~ '^[0-9]+-0x[0-9a-f]{64}$' and extra->>'extrinsicIndex' is not null`,
  );
}
