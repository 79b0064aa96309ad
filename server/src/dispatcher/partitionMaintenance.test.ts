import type { Logger } from '@walletd/core';
import { createTestDatabase, seedCompany, type TestDatabase } from '@walletd/test-harness';
import { maintainPartitions } from './partitionMaintenance';

/**
 * Issue 32: the months of `events` and `transfers` exist before their rows come (migration 027
 * makes three ahead; a dispatcher keeps making them), and a month whose rows already went to the
 * default partition is reported, never a failed insert.
 */
let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.drop());

const months = async (table: string) =>
  (await t.db.raw(`select inhrelid::regclass::text as name from pg_inherits where inhparent = ?::regclass order by 1`, [table])).rows.map(
    (r: { name: string }) => r.name,
  );

it('creates the current month and the next three of both tables, and reports a month the default partition already holds', async () => {
  const errors: unknown[] = [];
  const logger = { info: () => undefined, error: (o: unknown) => errors.push(o) } as unknown as Logger;
  const created = await maintainPartitions(t.db, logger, new Date('2031-06-15T00:00:00Z'));
  for (const table of ['transfers', 'events'])
    expect(created.filter((n) => n.startsWith(`${table}_y2031`))).toEqual(['06', '07', '08', '09'].map((m) => `${table}_y2031m${m}`));
  expect(await maintainPartitions(t.db, logger, new Date('2031-06-20T00:00:00Z'))).toEqual([]);
  expect(errors).toEqual([]);

  // Nobody made October's months in time: its rows go to the default partition, the insert works.
  const s = await seedCompany(t.db);
  const event = { id: '00000000-0000-4000-8000-0000000000b1', company_id: s.companyId, type: 't', chain: 'c', network: 'n', body: '{}' };
  await t.db('events').insert({ ...event, created_at: '2031-10-02T00:00:00Z' });
  const [{ part }] = (await t.db.raw(`select tableoid::regclass::text as part from events where id = ?`, [event.id])).rows;
  expect(part).toBe('events_default');
  const later = await maintainPartitions(t.db, logger, new Date('2031-10-03T00:00:00Z'));
  expect(later).not.toContain('events_y2031m10');
  expect(later).toContain('events_y2031m11');
  expect(later).toContain('transfers_y2031m10');
  expect(errors).toEqual([expect.objectContaining({ partition: 'events_y2031m10' })]);
  expect(await months('events')).toContain('events_y2032m01');
});
