import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '@walletd/test-harness';
import { createDb } from './createDb';
import { keepGenericPlans, runPrepared } from './prepared';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.drop());

describe('runPrepared', () => {
  const statement = {
    name: 'walletd_test_echo',
    text: 'select $1::int + 1 as n, (select array_agg(name order by name) from pg_prepared_statements) as names',
  };

  it('prepares a statement once per connection and runs it by name after', async () => {
    const db = createDb({ url: t.url, poolMax: 1 });
    try {
      const first = await runPrepared<{ n: number; names: string[] | null }>(db, statement, [1]);
      const second = await runPrepared<{ n: number; names: string[] | null }>(db, statement, [41]);
      expect(first[0]?.n).toBe(2);
      expect(second).toEqual([{ n: 42, names: ['walletd_test_echo'] }]);
    } finally {
      await db.destroy();
    }
  });

  it('runs the same text unnamed when prepared statements are off (PgBouncer in transaction mode)', async () => {
    const db = createDb({ url: t.url, poolMax: 1, preparedStatements: false });
    try {
      await runPrepared(db, statement, [1]);
      expect(await runPrepared(db, statement, [2])).toEqual([{ n: 3, names: null }]);
    } finally {
      await db.destroy();
    }
  });

  it('gives a failed statement its error and the connection back to the pool', async () => {
    const db = createDb({ url: t.url, poolMax: 1 });
    try {
      const bad = { name: 'walletd_test_bad', text: 'select 1 / $1::int as n' };
      for (let i = 0; i < 3; i++) await expect(runPrepared(db, bad, [0])).rejects.toThrow(/division by zero/);
      expect(await runPrepared<{ n: number }>(db, bad, [1])).toEqual([{ n: 1 }]);
    } finally {
      await db.destroy();
    }
  });

  it('genericPlan: every run on the generic plan, the setting left as it was after, in a failed transaction too', async () => {
    const db = createDb({ url: t.url, poolMax: 1 });
    const generic = {
      name: 'walletd_test_generic',
      text: "select 1 / $1::int as n, current_setting('plan_cache_mode') as mode",
      genericPlan: true,
    };
    const mode = async () => ((await db.raw('show plan_cache_mode')).rows[0] as { plan_cache_mode: string }).plan_cache_mode;
    try {
      for (let i = 0; i < 3; i++) expect(await runPrepared(db, generic, [1])).toEqual([{ n: 1, mode: 'force_generic_plan' }]);
      expect(await mode()).toBe('auto');
      const plans = await db.raw(`select generic_plans::int as g, custom_plans::int as c from pg_prepared_statements where name = ?`, [
        generic.name,
      ]);
      expect(plans.rows).toEqual([{ g: 3, c: 0 }]);
      // A failed run: outside a transaction the reset follows it; inside one, the rollback undoes the SET.
      await expect(runPrepared(db, generic, [0])).rejects.toThrow(/division by zero/);
      expect(await mode()).toBe('auto');
      await expect(db.transaction((trx) => runPrepared(trx, generic, [0]))).rejects.toThrow(/division by zero/);
      expect(await mode()).toBe('auto');
    } finally {
      await db.destroy();
    }
  });

  it('keepGenericPlans: the mode stays on the connection between generic runs, and anything else gets it reset first', async () => {
    const db = createDb({ url: t.url, poolMax: 1 });
    keepGenericPlans(db);
    const generic = {
      name: 'walletd_test_kept_generic',
      text: "select 1 / $1::int as n, current_setting('plan_cache_mode') as mode",
      genericPlan: true,
    };
    const plain = { name: 'walletd_test_kept_plain', text: "select current_setting('plan_cache_mode') as mode where $1::int = 1" };
    // What the pool's one connection last ran, read from another connection.
    const watcher = createDb({ url: t.url, poolMax: 1 });
    const pid = Number(
      (
        await runPrepared<{ pid: number }>(db, { name: 'walletd_test_pid', text: 'select pg_backend_pid() as pid where $1::int = 1' }, [1])
      )[0]?.pid,
    );
    const last = async () => (await watcher.raw('select query from pg_stat_activity where pid = ?', [pid])).rows[0].query as string;
    try {
      for (let i = 0; i < 3; i++) {
        expect(await runPrepared(db, generic, [1])).toEqual([{ n: 1, mode: 'force_generic_plan' }]);
        // No RESET after the run: the statement itself was the connection's last.
        expect(await last()).toBe(generic.text);
      }
      // The SET went once, with the first run: later runs send the statement alone.
      const sent = jest.spyOn(pg.Client.prototype, 'query');
      try {
        await runPrepared(db, generic, [1]);
        expect(sent.mock.calls.map(([q]) => (typeof q === 'string' ? q : (q as { text: string }).text))).toEqual([generic.text]);
      } finally {
        sent.mockRestore();
      }
      const plans = await db.raw('select generic_plans::int as g, custom_plans::int as c from pg_prepared_statements where name = ?', [
        generic.name,
      ]);
      expect(plans.rows).toEqual([{ g: 4, c: 0 }]);
      // The knex query above took the connection through the pool: it ran in the default mode.
      expect((await db.raw('show plan_cache_mode')).rows[0].plan_cache_mode).toBe('auto');
      await runPrepared(db, generic, [1]);
      expect(await runPrepared(db, plain, [1])).toEqual([{ mode: 'auto' }]);
      // A failed generic run leaves the mode set; the next other user still gets the default.
      await runPrepared(db, generic, [1]);
      await expect(runPrepared(db, generic, [0])).rejects.toThrow(/division by zero/);
      expect(await runPrepared(db, plain, [1])).toEqual([{ mode: 'auto' }]);
      // In a transaction: set around the run, as without keepGenericPlans.
      expect(await db.transaction((trx) => runPrepared(trx, generic, [1]))).toEqual([{ n: 1, mode: 'force_generic_plan' }]);
      expect((await db.raw('show plan_cache_mode')).rows[0].plan_cache_mode).toBe('auto');
    } finally {
      await db.destroy();
      await watcher.destroy();
    }
  });

  it('genericPlan on a connection an indexPlan statement ran on leaves its force_generic_plan in place', async () => {
    const db = createDb({ url: t.url, poolMax: 1 });
    const queue = { name: 'walletd_test_index_planned', text: 'select $1::int as n', indexPlan: true };
    const page = {
      name: 'walletd_test_generic_after_index',
      text: "select current_setting('plan_cache_mode') as mode where $1::int = 1",
      genericPlan: true,
    };
    try {
      await runPrepared(db, queue, [1]);
      expect(await runPrepared(db, page, [1])).toEqual([{ mode: 'force_generic_plan' }]);
      // Still forced for the queue statement's later runs: a RESET here would make PostgreSQL plan
      // them afresh with the normal scan settings (the plans indexPlan exists to avoid).
      expect((await db.raw('show plan_cache_mode')).rows[0].plan_cache_mode).toBe('force_generic_plan');
    } finally {
      await db.destroy();
    }
  });

  it('emits knex query events for listeners (tests, debugging)', async () => {
    const seen: string[] = [];
    const listener = (q: { sql: string }) => seen.push(q.sql);
    t.db.on('query', listener);
    try {
      await runPrepared(t.db, statement, [1]);
    } finally {
      t.db.off('query', listener);
    }
    expect(seen).toEqual([statement.text]);
  });
});
