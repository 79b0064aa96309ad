import { createTestDatabase, type TestDatabase } from '@walletd/test-harness';

/**
 * Issue 32: the claim walks the dead entries that delivered rows leave in the pending rows' indexes
 * until a vacuum removes them (bench/README.md, "Dispatcher claim between vacuums": the first claim
 * after 400k of them took a second). Autovacuum takes the table once its dead rows pass
 * `threshold + scale_factor × rows` (PostgreSQL 18: capped by `autovacuum_vacuum_max_threshold`),
 * the table's own settings first. This is that trigger point computed by the database from the
 * settings it holds, for the deliveries of 1M and 10M transfers: it must not grow with the table.
 * No vacuum is waited for (no timing in tests); the bench measures the claim itself.
 */
let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t.drop();
});

async function deadRowsBeforeAutovacuum(table: string, rows: number): Promise<number> {
  const setting = (name: string) => `coalesce(
    (select option_value from pg_options_to_table(c.reloptions) where option_name = '${name}'), current_setting('${name}'))::float8`;
  const { rows: out } = await t.db.raw(
    `select ${setting('autovacuum_vacuum_threshold')} + ${setting('autovacuum_vacuum_scale_factor')} * ?::float8 as by_scale,
            ${setting('autovacuum_vacuum_max_threshold')} as cap,
            coalesce((select option_value from pg_options_to_table(c.reloptions) where option_name = 'autovacuum_enabled'), 'on')::boolean
              as enabled
       from pg_class c where c.oid = ?::regclass`,
    [rows, table],
  );
  const r = out[0] as { by_scale: number; cap: number; enabled: boolean };
  expect(r.enabled).toBe(true);
  return r.cap > 0 ? Math.min(r.by_scale, r.cap) : r.by_scale;
}

describe('webhook_deliveries autovacuum', () => {
  it('comes after the same number of delivered rows whatever the table holds', async () => {
    const at2M = await deadRowsBeforeAutovacuum('webhook_deliveries', 2_000_000);
    const at20M = await deadRowsBeforeAutovacuum('webhook_deliveries', 20_000_000);
    expect(at2M).toBeLessThanOrEqual(5000);
    expect(at20M).toBe(at2M);
  });
});
