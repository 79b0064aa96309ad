import { type Db, createDb, ensureMonthPartitions } from '@walletd/core';
import { listEvents } from '@walletd/server';
import { createTestDatabase, eventually, nativeAsset, seedCompany, type Seeded, type TestDatabase } from '@walletd/test-harness';
import { seedHistory, seedHistoryScope, type HistoryScope } from '../harness/historySeed';

const TRANSFERS = 1_500; // two events each
const asset = nativeAsset('ethereum', 'devnet');

let t: TestDatabase;
let s: Seeded;
let scope: HistoryScope;
// One connection: prepared statements and their plan counts are per connection.
let one: Db;
let all: { id: string; wallet_id: number; type: string }[];
beforeAll(async () => {
  t = await createTestDatabase();
  s = await seedCompany(t.db);
  scope = await seedHistoryScope(t.db, { companyId: s.companyId });
  // The seeded events are of January 2025; every month since then exists, as on an install that old.
  await ensureMonthPartitions(t.db, 'events', { from: new Date('2025-01-01') });
  await seedHistory(t.db, scope, { to: TRANSFERS, assetKey: asset.key });
  await t.db.raw('analyze events');
  one = createDb({ url: t.url, poolMax: 1 });
  // Each event as the feed shows it: its transfer's number (the seed's `n`) and type, in feed order.
  all = (
    await t.db.raw(
      `select (body::jsonb->'data'->>'n') || ':' || type as id, wallet_id, type from events where company_id = ? order by xid, seq`,
      [s.companyId],
    )
  ).rows;
  // The feed lists an event once every older transaction on the cluster has ended (other suites share it).
  const whole = await eventually(
    () => listEvents(one, s.companyId, null, '0', 1000),
    (page) => page.events.length === 1000,
    60_000,
  );
  expect(whole.events).toHaveLength(1000);
}, 120_000);
afterAll(async () => {
  await one?.destroy();
  await t?.drop();
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}
const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

const feedPlans = async (): Promise<{ name: string; generic: number; custom: number }[]> =>
  (
    await one.raw(
      `select name, generic_plans::int as generic, custom_plans::int as custom from pg_prepared_statements
        where name like 'walletd_event_feed_%' order by name`,
    )
  ).rows;

const literal = (v: unknown): string => `'${(Array.isArray(v) ? `{${v.join(',')}}` : String(v)).replace(/'/g, "''")}'`;

/**
 * Issue 48 §5: `events` is partitioned by month and the feed has no month to prune to, so a page
 * planned per call planned a branch per month (2 ms of planning against 0.3 ms of execution at 27
 * months; 9.7 ms with a key's 1,000 wallets). Each page shape runs on its statement's generic
 * plan, and that plan walks the months' feed index and stops at the page.
 */
describe('the events feed pages', () => {
  it.each([
    ['the company key', null],
    ['a key limited to two wallets', [0, 1]],
  ])('%s: one generic plan per connection, walking the feed index up to the page', async (_shape, walletIndexes) => {
    const walletIds = walletIndexes === null ? null : new Set(walletIndexes.map((i) => scope.walletIds[i] as number));
    const before = new Map((await feedPlans()).map((p) => [p.name, p.generic + p.custom]));
    let rows = 0;
    for (let i = 0; i < 10; i++) rows += (await listEvents(one, s.companyId, walletIds, '0', 50)).events.length;
    expect(rows).toBe(500);
    const ran = (await feedPlans()).filter((p) => p.generic + p.custom - (before.get(p.name) ?? 0) === 10);
    expect(ran).toHaveLength(1);
    const kept = ran[0] as { name: string; generic: number; custom: number };
    expect(kept.custom).toBe(0);

    const values: unknown[] = [s.companyId, '0', 0, ['deposit.detected', 'deposit.confirmed'], 50];
    if (walletIds) values.push([...walletIds]);
    await one.raw('set plan_cache_mode = force_generic_plan');
    const { rows: explained } = await one.raw(`explain (analyze, format json) execute ${kept.name}(${values.map(literal).join(', ')})`);
    await one.raw('reset plan_cache_mode');
    const plan = nodes((explained[0] as { 'QUERY PLAN': [{ Plan: PlanNode }] })['QUERY PLAN'][0].Plan);
    const history = plan.filter((n) => n['Relation Name']?.startsWith('events'));
    const touched = (n: PlanNode) => ((n['Actual Rows'] ?? 0) + (n['Rows Removed by Filter'] ?? 0)) * (n['Actual Loops'] ?? 1);
    expect(history.filter((n) => n['Node Type'] === 'Seq Scan' && touched(n) > 0).map((n) => n['Relation Name'])).toEqual([]);
    expect(plan.map((n) => n['Node Type'])).toContain('Merge Append');
    // A page of 50 (two wallets of ten: about five rows read per row listed), far below the 3,000 events.
    expect(history.reduce((sum, n) => sum + touched(n), 0)).toBeLessThanOrEqual(walletIds ? 400 : 100);
  });

  it('pages of any size follow the whole feed in order; a scope and a type list keep exactly their events', async () => {
    const page = (walletIds: ReadonlySet<number> | null, types?: string[]) => async (after: string, limit: number) =>
      listEvents(one, s.companyId, walletIds, after, limit, types);
    const follow = async (read: (after: string, limit: number) => ReturnType<typeof listEvents>, limits: number[]) => {
      const seen: string[] = [];
      let after = '0';
      for (const limit of limits) {
        const p = await read(after, limit);
        expect(p.events).toHaveLength(limit);
        expect(p.hasMore).toBe(true);
        seen.push(...(p.events as { type: string; data: { n: number } }[]).map((e) => `${e.data.n}:${e.type}`));
        after = p.next;
      }
      return seen;
    };
    const ids = (rows: typeof all) => rows.map((r) => r.id);
    expect(await follow(page(null), [7, 73, 50, 120])).toEqual(ids(all).slice(0, 250));
    const two = new Set([scope.walletIds[3] as number, scope.walletIds[7] as number]);
    const mine = all.filter((r) => two.has(r.wallet_id));
    expect(await follow(page(two), [11, 39, 200])).toEqual(ids(mine).slice(0, 250));
    const confirmed = all.filter((r) => r.type === 'deposit.confirmed');
    expect(await follow(page(null, ['deposit.confirmed']), [1, 99, 100])).toEqual(ids(confirmed).slice(0, 200));
    const both = mine.filter((r) => r.type === 'deposit.confirmed');
    expect(await follow(page(two, ['deposit.confirmed']), [30])).toEqual(ids(both).slice(0, 30));
  });
});
