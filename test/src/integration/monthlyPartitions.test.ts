import { ensureMonthPartitions, migrateLatest } from '@walletd/core';
import { persistBlocks } from '@walletd/indexer';
import {
  call,
  createEmptyDatabase,
  createTestDatabase,
  nativeAsset,
  seedCompany,
  seedWatchedAddress,
  startTestApp,
  type TestDatabase,
} from '@walletd/test-harness';
import { seedHistory, seedHistoryScope } from '../harness/historySeed';

/**
 * Issue 32, retention: `events` and `transfers` are partitioned by month (migration 027) so an
 * operator can detach and archive old months. What must hold: the migration keeps every row; a
 * transfer is still recorded exactly once whichever months its sightings fall in (the unique key
 * lives in `transfer_keys`, kept when a month is detached); a month detached leaves the API
 * answering; a time-bounded read (the replay window) reads only its month.
 */
const asset = nativeAsset('ethereum', 'devnet');
const key = { chain: 'ethereum', network: 'devnet' };

/** The table's columns now, so a digest after later migrations reads the same ones (they add columns). */
const columnsOf = async (t: TestDatabase, table: string): Promise<string> =>
  (
    await t.db.raw(
      `select string_agg('x.' || quote_ident(column_name), ',' order by ordinal_position) as c
         from information_schema.columns where table_schema = current_schema() and table_name = ?`,
      [table],
    )
  ).rows[0].c;

/** A stable digest of a table's rows (those columns), in id order. */
const digest = async (t: TestDatabase, table: string, order: string, columns: string) =>
  (await t.db.raw(`select count(*)::int as n, md5(string_agg(row(${columns})::text, ',' order by ${order})) as h from ${table} x`)).rows[0];

describe('monthly partitions', () => {
  it('migration 027 keeps every row of a seeded history, placed in its month, and the sequences go on', async () => {
    const t = await createEmptyDatabase();
    try {
      const before027 = (await t.db.migrate.list())[1].findIndex((m: { file: string } | string) =>
        (typeof m === 'string' ? m : m.file).startsWith('027'),
      );
      for (let i = 0; i < before027; i++) await t.db.migrate.up();
      const [company] = await t.db('companies').insert({ name: 'c' }).returning('id');
      const scope = await seedHistoryScope(t.db, { companyId: company.id });
      await seedHistory(t.db, scope, { to: 3000, assetKey: asset.key, pending: 20 });
      // Some rows in another month.
      await t.db.raw(`update transfers set created_at = created_at + interval '400 days' where id % 3 = 0`);
      await t.db.raw(`update events set created_at = created_at + interval '400 days' where seq % 3 = 0`);
      const tables: [string, string][] = [
        ['transfers', 'x.id'],
        ['events', 'x.seq'],
        ['webhook_deliveries', 'x.id'],
      ];
      const columns = await Promise.all(tables.map(([table]) => columnsOf(t, table)));
      const was = await Promise.all(tables.map(([table, order], i) => digest(t, table, order, columns[i] as string)));
      expect(was[0].n).toBe(3000);

      await migrateLatest(t.db);
      expect(await Promise.all(tables.map(([table, order], i) => digest(t, table, order, columns[i] as string)))).toEqual(was);
      const placed = (await t.db.raw(`select tableoid::regclass::text as part, count(*)::int as n from transfers group by 1 order by 1`))
        .rows;
      expect(placed).toEqual([
        { part: 'transfers_y2025m01', n: 2000 },
        { part: 'transfers_y2026m02', n: 1000 },
      ]);
      expect(Number((await t.db.raw('select count(*) from transfer_keys')).rows[0].count)).toBe(3000);
      const [e] = await t
        .db('events')
        .insert({ id: '00000000-0000-4000-8000-0000000000aa', company_id: company.id, type: 't', chain: 'c', network: 'n', body: '{}' })
        .returning('seq');
      expect(Number(e.seq)).toBe(6001);
    } finally {
      await t.drop();
    }
  });

  describe('on a running app', () => {
    let t: TestDatabase;
    let app: Awaited<ReturnType<typeof startTestApp>>;
    let rootKey: string;
    let companyId: number;
    const to = '0x3333333333333333333333333333333333333333';
    const assets = new Map([[asset.key, asset]]);
    const deposit = (n: number) => ({
      txHash: `0x${n.toString(16).padStart(64, '0')}`,
      eventIndex: 0,
      to,
      toKey: to,
      assetKey: asset.key,
      amount: 7n,
      eventType: 'native_transfer' as const,
    });
    const block = (n: bigint, transfers: ReturnType<typeof deposit>[]) => ({
      block: { number: n, hash: `0x${n.toString(16)}`, parentHash: `0x${(n - 1n).toString(16)}` },
      transfers,
    });

    beforeAll(async () => {
      t = await createTestDatabase();
      // Months back to the seeded history's (January 2025), as the migration of an old database makes them.
      for (const table of ['transfers', 'events'] as const) await ensureMonthPartitions(t.db, table, { from: new Date('2025-01-01') });
      app = await startTestApp(t.db);
      const s = await seedCompany(t.db);
      rootKey = s.rootKey;
      companyId = s.companyId;
      const scope = await seedHistoryScope(t.db, { companyId });
      await seedHistory(t.db, scope, { to: 2000, assetKey: asset.key, pending: 0 });
      await seedWatchedAddress(t.db, companyId, to, 'live');
    });
    afterAll(async () => {
      await app.close();
      await t.drop();
    });

    it('records a transfer once however many months apart it is seen, and refuses a second row for its key', async () => {
      await persistBlocks(t.db, key, [block(500n, [deposit(1)])], assets, 64, 500n);
      // Its row moved to an old month (as if recorded then): the key follows it.
      await t.db.raw(`update transfers set created_at = '2025-01-15T00:00:00Z' where tx_key = ?`, [deposit(1).txHash]);
      const announced = await persistBlocks(t.db, key, [block(501n, [deposit(1), deposit(2)])], assets, 64, 501n);
      expect(announced).toEqual([1]);
      const rows = await t
        .db('transfers')
        .whereIn('tx_key', [deposit(1).txHash, deposit(2).txHash])
        .orderBy('id');
      expect(rows.map((r) => [r.tx_key, Number(r.block_number)])).toEqual([
        [deposit(1).txHash, 501],
        [deposit(2).txHash, 501],
      ]);
      // Written by hand in this month, the same key is refused as the unique constraint did.
      const { id: _id, created_at: _c, ...copy } = rows[0];
      await expect(t.db('transfers').insert(copy)).rejects.toMatchObject({ code: '23505', constraint: 'transfer_keys_pkey' });
    });

    it('answers the API after January 2025 is detached, and a rescan of a detached transfer credits nothing again', async () => {
      const before = await call(app.url, 'GET', '/v1/transactions?limit=5', { key: rootKey });
      expect(before.status).toBe(200);
      await t.db.raw('alter table transfers detach partition transfers_y2025m01');
      await t.db.raw('alter table events detach partition events_y2025m01');
      for (const path of ['/v1/transactions?limit=5', '/v1/events?limit=5', '/v1/wallets'])
        expect((await call(app.url, 'GET', path, { key: rootKey })).status).toBe(200);
      const listed = await call(app.url, 'GET', '/v1/transactions?limit=100', { key: rootKey });
      const hashes = listed.body.transactions.map((r: { txHash: string }) => r.txHash);
      expect(hashes).toContain(deposit(2).txHash);
      expect(hashes).not.toContain(deposit(1).txHash);
      // deposit(1) sits in the detached month: seen again, it is known and announces nothing.
      expect(await persistBlocks(t.db, key, [block(502n, [deposit(1)])], assets, 64, 502n)).toEqual([0]);
      expect(
        Number(
          (
            await t
              .db('transfers')
              .where({ tx_key: deposit(1).txHash })
              .count('* as n')
          )[0]?.n,
        ),
      ).toBe(0);
      await t.db.raw(`alter table transfers attach partition transfers_y2025m01 for values from ('2025-01-01Z') to ('2025-02-01Z')`);
      await t.db.raw(`alter table events attach partition events_y2025m01 for values from ('2025-01-01Z') to ('2025-02-01Z')`);
    });

    it('reads only the month of a time-bounded read (the replay window: partition pruning)', async () => {
      const { rows } = await t.db.raw(
        `explain (format json) select e.id from events e
          where e.company_id = ? and e.created_at >= '2025-01-01T00:10:00Z' and e.created_at <= '2025-01-01T01:10:00Z'`,
        [companyId],
      );
      const relations: string[] = [];
      const walk = (n: Record<string, unknown>) => {
        if (n['Relation Name']) relations.push(n['Relation Name'] as string);
        for (const c of (n.Plans as Record<string, unknown>[] | undefined) ?? []) walk(c);
      };
      walk(rows[0]['QUERY PLAN'][0].Plan);
      expect([...new Set(relations)]).toEqual(['events_y2025m01']);
    });
  });
});
