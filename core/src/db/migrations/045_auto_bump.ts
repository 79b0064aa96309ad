import type { Knex } from 'knex';

/**
 * Issue 46 §5: automatic speed-up. `auto_bump_from` is the indexed height at which the auto-bumper
 * first saw the withdrawal's latest transaction waiting (null: not seen yet, or just replaced):
 * it bumps once the chain is `afterBlocks` past it, so at most once per that many blocks.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('withdrawals', (t) => {
    t.specificType('auto_bump_from', 'numeric(78,0)');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('withdrawals', (t) => {
    t.dropColumn('auto_bump_from');
  });
}
