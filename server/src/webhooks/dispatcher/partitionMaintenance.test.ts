import type { Logger } from '@walletd/core';
import { createTestDatabase, seedCompany, seedWatchedAddress, type TestDatabase } from '@walletd/test-harness';
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

  // docs/operate/retention.md's way out, for both tables: the month made by hand, its rows moved out of the default
  // (a transfer keeps its exactly-once key), then the maintenance has nothing left to report.
  const walletId = await seedWatchedAddress(t.db, s.companyId, '0x00000000000000000000000000000000000000c1');
  const transfer = {
    company_id: s.companyId,
    wallet_id: walletId,
    chain: 'ethereum',
    network: 'devnet',
    tx_hash: '0xt',
    tx_key: '0xt',
    event_index: 0,
    direction: 'incoming',
    event_type: 'native_transfer',
    asset_key: 'ethereum:devnet:native',
    amount: '1',
    to_address: '0xc1',
    status: 'confirmed',
  };
  await t.db('transfers').insert({ ...transfer, created_at: '2032-03-02T00:00:00Z' });
  // The balance ledger (migration 026) counts a row once: moving it between months must not add it again.
  const ledger = async () =>
    (
      await t
        .db('balance_ledger')
        .where({ wallet_id: walletId })
        .orderBy(['address', 'asset_key'])
        .select('address', 'asset_key', 'confirmed')
    ).map((r: { address: string; asset_key: string; confirmed: string }) => `${r.address}|${r.asset_key}|${r.confirmed}`);
  const before = await ledger();
  expect(before).toEqual(['|ethereum:devnet:native|1']);
  for (const [table, month, from, to] of [
    ['events', '2031m10', '2031-10-01Z', '2031-11-01Z'],
    ['transfers', '2032m03', '2032-03-01Z', '2032-04-01Z'],
  ]) {
    const where = `created_at >= '${from}' and created_at < '${to}'`;
    await t.db.transaction(async (trx) => {
      await trx.raw(`alter table ${table} detach partition ${table}_default`);
      // Filled as a table of its own, then attached: no row passes through the parent, so no
      // trigger of the parent's (the balance ledger's, the transfers' key) sees a row twice.
      await trx.raw(`create table ${table}_y${month} (like ${table} including defaults including constraints)`);
      await trx.raw(`insert into ${table}_y${month} select * from ${table}_default where ${where}`);
      await trx.raw(`delete from ${table}_default where ${where}`);
      await trx.raw(`alter table ${table} attach partition ${table}_y${month} for values from ('${from}') to ('${to}')`);
      await trx.raw(`alter table ${table} attach partition ${table}_default default`);
    });
  }
  expect(await ledger()).toEqual(before);
  const [{ part: moved }] = (await t.db.raw(`select tableoid::regclass::text as part from events where id = ?`, [event.id])).rows;
  expect(moved).toBe('events_y2031m10');
  const kept = await t.db('transfers').where({ tx_key: '0xt' }).select('id', t.db.raw('tableoid::regclass::text as part'));
  expect(kept).toEqual([expect.objectContaining({ part: 'transfers_y2032m03' })]);
  await expect(t.db('transfers').insert(transfer)).rejects.toMatchObject({ code: '23505' });
  errors.length = 0;
  await maintainPartitions(t.db, logger, new Date('2031-10-04T00:00:00Z'));
  expect(errors).toEqual([]);
});
