import { createTestDatabase, seedCompany, startTestApp, call, type TestDatabase } from '@walletd/test-harness';
import { createDb, runPrepared } from '@walletd/core';

/**
 * The hot reads run as statements prepared per connection (core's runPrepared). A release whose
 * migration adds a column must not break the processes still running: PostgreSQL re-plans their
 * statements, but refuses one whose result columns changed, which is why they name their columns.
 */
let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.drop());

describe('prepared hot reads across a migration', () => {
  it('keep answering after a column is added to the tables they read (a `select *` would not)', async () => {
    const db = createDb({ url: t.url, poolMax: 1 }); // one connection: every statement is prepared on it
    const app = await startTestApp(db);
    try {
      const s = await seedCompany(db);
      const created = await call(app.url, 'POST', '/v1/wallets', {
        key: s.rootKey,
        body: { name: 'hot', chain: 'ethereum', network: 'sepolia' },
      });
      expect(created.status).toBe(201);
      const star = { name: 'walletd_test_star', text: 'select * from wallets where id = $1' };
      await runPrepared(db, star, [created.body.id]);
      const read = async () =>
        Promise.all(
          ['/v1/me', '/v1/wallets', '/v1/transactions', `/v1/transactions?walletId=${created.body.id}`].map((p) =>
            call(app.url, 'GET', p, { key: s.rootKey }),
          ),
        );
      expect((await read()).map((r) => r.status)).toEqual([200, 200, 200, 200]);

      for (const table of ['wallets', 'api_keys', 'companies', 'members', 'transfers', 'withdrawals', 'rate_limit_hits'])
        await t.db.raw(`alter table ${table} add column added_by_a_later_release int`);

      const after = await read();
      expect(after.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      expect(after[1]?.body.wallets.map((w: { id: number }) => w.id)).toEqual([created.body.id]);
      // What the rule prevents: the same connection's `select *` statement is refused now.
      await expect(runPrepared(db, star, [created.body.id])).rejects.toThrow(/cached plan must not change result type/);
    } finally {
      await app.close();
      await db.destroy();
    }
  });
});
