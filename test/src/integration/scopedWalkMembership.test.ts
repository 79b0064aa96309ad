import { type Db, createDb, readLimits } from '@walletd/core';
import { loadPlugins } from '@walletd/server';
import { listTransactions, type TransactionQuery } from '@walletd/server/dist/wallets/transactionList';
import { scopeMembership } from '@walletd/server/dist/wallets/scopeMembership';
import { createTestDatabase, nativeAsset, seedCompany, testConfig, type Seeded, type TestDatabase } from '@walletd/test-harness';
import { seedHistory, seedHistoryScope, type HistoryScope } from '../harness/historySeed';

/**
 * Issue 48 §5: a key limited to many wallets that leaves some of its company's out walks the
 * company's rows on one generic plan (scopedCompanyWalk.ts) and tests each row's wallet against
 * the key's. That test hashed the key's ids twice a side on every run, most of the page's
 * PostgreSQL time with 1,000 ids; it is now one bit of a bitmap of the ids per row, or, for ids
 * spread too wide for a bitmap, one hash a side (scopeMembership.ts). The pages stay the same rows.
 */
let t: TestDatabase;
let s: Seeded;
let scope: HistoryScope;
let one: Db;
const sent: { prepared?: string; bindings: unknown[] }[] = [];
beforeAll(async () => {
  t = await createTestDatabase();
  s = await seedCompany(t.db);
  // More wallets than are walked one by one (16).
  scope = await seedHistoryScope(t.db, { companyId: s.companyId, wallets: 30 });
  await seedHistory(t.db, scope, { to: 3_000, assetKey: nativeAsset('ethereum', 'devnet').key, withdrawalEvery: 5 });
  await t.db.raw('analyze');
  one = createDb({ url: t.url, poolMax: 1, settings: readLimits(10_000) });
  one.on('query', (x: { prepared?: string; bindings: unknown[] }) => sent.push(x));
}, 120_000);
afterAll(async () => {
  await one?.destroy();
  await t?.drop();
});

const list = (q: Partial<TransactionQuery>) =>
  listTransactions(one, testConfig(), loadPlugins(), { companyId: s.companyId, walletIds: null, limit: 50, ...q });

/** Ten pages by cursor with `walletIds`, and the same rows read from the company's pages. */
async function tenPages(walletIds: Set<number>) {
  const got: string[] = [];
  let after: string | undefined;
  for (let i = 0; i < 10; i++) {
    const page = await list({ walletIds, ...(after ? { after } : {}) });
    got.push(...page.transactions.map((r) => `${r.kind}:${r.id}:${r.walletId}`));
    after = page.next as string;
  }
  const want: string[] = [];
  after = undefined;
  while (want.length < got.length + 1) {
    const page = await list({ limit: 200, ...(after ? { after } : {}) });
    for (const r of page.transactions) if (walletIds.has(r.walletId)) want.push(`${r.kind}:${r.id}:${r.walletId}`);
    if (!page.next) break;
    after = page.next;
  }
  return { got, want: want.slice(0, 500) };
}

interface PlanNode {
  'Node Type': string;
  Plans?: PlanNode[];
}
const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];
const literal = (v: unknown): string =>
  Buffer.isBuffer(v) ? `'\\x${v.toString('hex')}'` : `'${(Array.isArray(v) ? `{${v.join(',')}}` : String(v)).replace(/'/g, "''")}'`;

/** The node types of the plan the last walk ran on (its generic plan, executed again). */
async function lastWalkPlan(): Promise<string[]> {
  const walk = sent.filter((x) => x.prepared?.startsWith('walletd_list_transactions_')).pop();
  if (!walk) throw new TypeError('no list statement was sent');
  await one.raw('set plan_cache_mode = force_generic_plan');
  const { rows } = await one.raw(`explain (analyze, format json) execute ${walk.prepared}(${walk.bindings.map(literal).join(', ')})`);
  await one.raw('reset plan_cache_mode');
  return nodes((rows[0] as { 'QUERY PLAN': [{ Plan: PlanNode }] })['QUERY PLAN'][0].Plan).map((n) => n['Node Type']);
}

describe('a capped walk tests each row against the key’s wallets', () => {
  it('ids close together: one bit of a bitmap per row, no hash of the ids; the same pages', async () => {
    const ids = new Set(scope.walletIds.filter((_, n) => n !== 3));
    const { got, want } = await tenPages(ids);
    expect(got).toHaveLength(500);
    expect(got).toEqual(want);
    sent.length = 0;
    await list({ walletIds: ids });
    const plan = await lastWalkPlan();
    // The capped walk (its rows numbered), and no ids unnested for a hash (it was four, two tests a side).
    expect(plan).toContain('WindowAgg');
    expect(plan.filter((n) => n === 'ProjectSet')).toHaveLength(0);
  });

  it('ids spread too wide for a bitmap: one hash of the ids a side; the same pages', async () => {
    const ids = new Set([...scope.walletIds.filter((_, n) => n !== 3), 2_000_000_000]);
    const { got, want } = await tenPages(ids);
    expect(got).toHaveLength(500);
    expect(got).toEqual(want);
    sent.length = 0;
    await list({ walletIds: ids });
    expect((await lastWalkPlan()).filter((n) => n === 'ProjectSet')).toHaveLength(2);
  });

  it('a key naming every live wallet of its company: one statement a page, the walk; no check of the scope first', async () => {
    const every = (await t.db('wallets').where({ company_id: s.companyId }).whereNull('deleted_at').select('id')).map((r) => r.id);
    const ids = new Set<number>([...every, 999_999]);
    const { got, want } = await tenPages(ids);
    expect(got).toHaveLength(500);
    expect(got).toEqual(want);
    sent.length = 0;
    await list({ walletIds: ids });
    // (The indexer's heights are read for a page with confirmed rows: a statement of its own.)
    const statements = sent.map((x) => x.prepared).filter((name) => name !== 'walletd_indexed_heights');
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatch(/^walletd_list_transactions_/);
    expect(await lastWalkPlan()).toContain('WindowAgg');
  });

  it.each([
    ['close', [5, 7, 8, 15, 16, 17, 23, 24, 100]],
    ['one id', [41]],
    ['wide', [3, 9, 500_000, 2_000_000_000]],
  ])('the SQL test agrees with the ids (%s), at and past both ends', async (_name, list: number[]) => {
    const ids = new Set(list);
    const values: unknown[] = [];
    const param = (v: unknown, cast = '') => `$${values.push(v)}${cast}`;
    const probe = [...new Set(list.flatMap((id) => [id - 9, id - 1, id, id + 1, id + 9]))].filter((x) => x > 0);
    const test = scopeMembership('x', ids, param);
    const { rows } = await one.raw(
      `select x, ${test.replace(/\$(\d+)/g, (_, n) => `:v${n}`)} as mine from unnest(:probe::int[]) x order by x`,
      { probe, ...Object.fromEntries(values.map((v, i) => [`v${i + 1}`, v])) },
    );
    expect(rows.map((r: { x: number; mine: boolean }) => [r.x, r.mine])).toEqual(
      [...probe].sort((a, b) => a - b).map((x) => [x, ids.has(x)]),
    );
  });
});
