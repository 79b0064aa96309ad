import { createEmptyDatabase } from '@walletd/test-harness';
import { migrateLatest, migrateRollbackAll } from './createDb';

describe('migrations', () => {
  it('go up, down and up again cleanly', async () => {
    const t = await createEmptyDatabase();
    try {
      const tables = async () =>
        (await t.db.raw(`select tablename from pg_tables where schemaname = 'public' and tablename not like 'knex_%' order by 1`)).rows.map(
          (r: { tablename: string }) => r.tablename,
        );
      expect(await migrateLatest(t.db)).toEqual(['001_initial', '002_withdrawals', '003_mempool', '005_indexer_fencing']);
      const first = await tables();
      expect(first).toEqual(expect.arrayContaining(['companies', 'api_keys', 'wallets', 'transfers', 'webhook_deliveries', 'events']));
      await migrateRollbackAll(t.db);
      expect(await tables()).toEqual([]);
      await migrateLatest(t.db);
      expect(await tables()).toEqual(first);
      // numeric(78,0) holds a full uint256 exactly.
      const max = ((1n << 256n) - 1n).toString();
      const { rows } = await t.db.raw(`select ?::numeric(78,0)::text as v`, [max]);
      expect(rows[0].v).toBe(max);
    } finally {
      await t.drop();
    }
  });
});
