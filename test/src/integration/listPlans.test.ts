import { type Db, createDb, ensureMonthPartitions, readLimits } from '@walletd/core';
import { loadPlugins } from '@walletd/server';
import { listTransactions, type TransactionQuery } from '@walletd/server/dist/wallets/transactionList';
import { createTestDatabase, nativeAsset, seedCompany, testConfig, type Seeded, type TestDatabase } from '@walletd/test-harness';
import { seedHistory, seedHistoryScope, type HistoryScope } from '../harness/historySeed';

const MONTHS = 28;
const asset = nativeAsset('ethereum', 'devnet');
const config = testConfig();
const plugins = loadPlugins();

let t: TestDatabase;
let s: Seeded;
let scope: HistoryScope;
// One connection of the history-reads pool's kind (its startup settings): prepared statements and
// their plan counts are per connection.
let one: Db;
beforeAll(async () => {
  t = await createTestDatabase();
  s = await seedCompany(t.db);
  scope = await seedHistoryScope(t.db, { companyId: s.companyId });
  // The months of a long-running install, each holding some of the history.
  const from = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() - MONTHS, 1));
  await ensureMonthPartitions(t.db, 'transfers', { from });
  await seedHistory(t.db, scope, { to: 20_000, assetKey: asset.key, withdrawalEvery: 5 });
  await t.db.raw(
    `update transfers set created_at = now() - (id / 10 % ${MONTHS}) * interval '1 month' - id * interval '1 second' where company_id = ?`,
    [s.companyId],
  );
  await t.db.raw('analyze');
  one = createDb({ url: t.url, poolMax: 1, settings: readLimits(10_000) });
  one.on('query', (x: Sent) => sent.push(x));
}, 120_000);
afterAll(async () => {
  await one?.destroy();
  await t?.drop();
});

const list = (q: Partial<TransactionQuery>) =>
  listTransactions(one, config, plugins, { companyId: s.companyId, walletIds: null, limit: 50, ...q });

interface Sent {
  prepared?: string;
  bindings: unknown[];
}
let sent: Sent[] = [];

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Subplans Removed'?: number;
  Plans?: PlanNode[];
}
const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

/** The list statements prepared on `one`, with how often each ran on a kept plan and on a fresh one. */
async function plans(): Promise<{ name: string; generic: number; custom: number }[]> {
  return (
    await one.raw(
      `select name, generic_plans::int as generic, custom_plans::int as custom from pg_prepared_statements
        where name like 'walletd_list_transactions_%' order by name`,
    )
  ).rows;
}

/** A bound value as a literal of EXECUTE's arguments (each is cast to its parameter's type). */
const literal = (v: unknown): string => `'${(Array.isArray(v) ? `{${v.join(',')}}` : String(v)).replace(/'/g, "''")}'`;

/**
 * Issue 32: `transfers` is partitioned by month and a list page has no month to prune to at plan
 * time, so planning it costs a branch per month kept (2–7 ms a page at 28 months on the scale bench,
 * against < 2 ms of execution). Each list shape must run on the plan kept for its statement, and
 * that plan, generic, must still walk the months' indexes (pruning them at run time by the cursor)
 * and stop at the page.
 */
describe('the transaction list pages', () => {
  it.each([
    ['the first page', {}],
    ['by wallet', { byWallet: true }],
    ['by cursor', { byCursor: true }],
    ['by wallet and cursor', { byWallet: true, byCursor: true }],
    ['a key limited to some wallets', { scoped: true }],
    ['the hash search', { search: true }],
    ['the console search by address', { address: true }],
  ])('%s: the plan it runs on walks indexes (a page: one generic plan per connection)', async (_shape, shape: Record<string, boolean>) => {
    const q: Partial<TransactionQuery> = {};
    const sample = await t.db('transfers').where({ company_id: s.companyId }).orderBy('id').offset(3_000).first('tx_hash', 'from_address');
    if (shape.scoped) q.walletIds = new Set([scope.walletIds[1] as number, scope.walletIds[2] as number]);
    if (shape.byWallet) q.walletId = scope.walletIds[1] as number;
    if (shape.byCursor) q.after = (await list(q)).next as string;
    if (shape.search) q.search = sample.tx_hash;
    if (shape.address) q.hashOrAddress = sample.from_address;
    const before = new Map((await plans()).map((p) => [p.name, p.generic + p.custom]));
    sent = [];
    let rows = 0;
    for (let i = 0; i < 10; i++) rows += (await list(q)).transactions.length;
    expect(rows).toBe(shape.search || shape.address ? 10 : 500);
    // The statement of this shape: the one that ran these ten times.
    const ran = (await plans()).filter((p) => p.generic + p.custom - (before.get(p.name) ?? 0) === 10);
    expect(ran).toHaveLength(1);
    const kept = ran[0] as { name: string; generic: number; custom: number };
    // Every page on the generic plan, made on the first, a key limited to a few wallets too (issue
    // 48 §5: it was planned afresh on every call); a search is planned for its value.
    const page = !shape.search && !shape.address;
    if (page) expect(kept).toMatchObject({ generic: 10, custom: 0 });

    // The plan those runs used: EXECUTE of the same statement, in the mode runPrepared runs it in.
    const last = sent.filter((x) => x.prepared === kept.name).pop() as Sent;
    if (page) await one.raw('set plan_cache_mode = force_generic_plan');
    const { rows: explained } = await one.raw(
      `explain (analyze, format json) execute ${kept.name}(${last.bindings.map(literal).join(', ')})`,
    );
    await one.raw('reset plan_cache_mode');
    const plan = nodes((explained[0] as { 'QUERY PLAN': [{ Plan: PlanNode }] })['QUERY PLAN'][0].Plan);
    if (page) expect((await plans()).find((p) => p.name === kept.name)?.generic).toBe(11);
    const history = plan.filter((n) => n['Relation Name'] && /^(transfers|withdrawals)/.test(n['Relation Name']));
    const touched = (n: PlanNode) => ((n['Actual Rows'] ?? 0) + (n['Rows Removed by Filter'] ?? 0)) * (n['Actual Loops'] ?? 1);
    // (An empty month, such as those made ahead, may be read by a scan of its nothing.)
    expect(history.filter((n) => n['Node Type'] === 'Seq Scan' && touched(n) > 0).map((n) => n['Relation Name'])).toEqual([]);
    // A page of 50 (and a wallet's empty side): a bound far below the 24,000 rows seeded. A key
    // limited to two of the ten wallets walks each one's index up to a page (a generic plan of the
    // company's index filtered by wallet read the whole 4,000 withdrawals there).
    expect(history.reduce((sum, n) => sum + touched(n), 0)).toBeLessThanOrEqual(shape.scoped ? 400 : 200);
    if (!shape.search && !shape.address) {
      // Across the months, ordered by the (company or wallet, time, id) indexes, the LIMIT stopping early.
      expect(plan.map((n) => n['Node Type'])).toContain('Merge Append');
    }
    if (shape.byCursor) {
      // Months after the cursor are left out when the page runs (the parameter is known then).
      expect(plan.find((n) => n['Node Type'] === 'Merge Append')?.['Subplans Removed']).toBeGreaterThan(0);
    }
  });

  it('a key limited to a few wallets pages through exactly those wallets’ history, in order, as the whole list does', async () => {
    const mine = new Set([scope.walletIds[1] as number, scope.walletIds[2] as number]);
    const want: string[] = [];
    let after: string | undefined;
    while (want.length < 250) {
      const page = await list({ limit: 200, ...(after ? { after } : {}) });
      for (const r of page.transactions) if (mine.has(r.walletId)) want.push(`${r.kind}:${r.id}`);
      if (!page.next) break;
      after = page.next;
    }
    const got: string[] = [];
    after = undefined;
    for (let i = 0; i < 5; i++) {
      const page = await list({ walletIds: mine, limit: 50, ...(after ? { after } : {}) });
      got.push(...page.transactions.map((r) => `${r.kind}:${r.id}`));
      after = page.next as string;
    }
    expect(got).toHaveLength(250);
    expect(got).toEqual(want.slice(0, 250));
  });
});

/**
 * Issue 48 §5: a key limited to more wallets than are walked one by one was planned afresh on
 * every call (9.5 ms of planning with 1,000 ids at 1M transfers). It walks the company's rows up to
 * a cap on one generic plan (scopedCompanyWalk.ts); when its wallets are all of the company's live
 * ones, that walk's first rows are all its own.
 */
describe('a key limited to many wallets', () => {
  let everyLive: number[];
  beforeAll(async () => {
    // More wallets than PER_WALLET_SCOPE (16), the new ones without history, and one archived.
    const more = await t
      .db('wallets')
      .insert(
        Array.from({ length: 10 }, (_, n) => ({
          company_id: s.companyId,
          name: `m${n}`,
          chain: 'ethereum',
          network: 'devnet',
          secret_envelope: {},
        })),
      )
      .returning('id');
    await t.db('wallets').where({ id: more[0].id }).update({ deleted_at: t.db.fn.now() });
    everyLive = (await t.db('wallets').where({ company_id: s.companyId }).whereNull('deleted_at').select('id')).map((r) => r.id);
    expect(everyLive.length).toBeGreaterThan(16);
  });

  /** Ten pages by cursor with `walletIds`; the statement they ran on and its plan counts. */
  async function tenPages(walletIds: Set<number>) {
    const before = new Map((await plans()).map((p) => [p.name, p]));
    const ids: string[] = [];
    let after: string | undefined;
    for (let i = 0; i < 10; i++) {
      const page = await list({ walletIds, ...(after ? { after } : {}) });
      ids.push(...page.transactions.map((r) => `${r.kind}:${r.id}:${r.walletId}`));
      after = page.next as string;
    }
    // How often each kind of plan ran for these pages, over every list statement.
    const now = await plans();
    const ran = { generic: 0, custom: 0 };
    for (const p of now) {
      const was = before.get(p.name) ?? { generic: 0, custom: 0 };
      ran.generic += p.generic - was.generic;
      ran.custom += p.custom - was.custom;
    }
    return { ids, ran };
  }

  /** The same ten pages of the whole company, kept to `walletIds`. */
  async function companyPages(walletIds: Set<number>, want: number) {
    const ids: string[] = [];
    let after: string | undefined;
    while (ids.length < want) {
      const page = await list({ limit: 200, ...(after ? { after } : {}) });
      for (const r of page.transactions) if (walletIds.has(r.walletId)) ids.push(`${r.kind}:${r.id}:${r.walletId}`);
      if (!page.next) break;
      after = page.next;
    }
    return ids.slice(0, want);
  }

  it('naming every live wallet of the company: the company’s pages, on one generic plan', async () => {
    const scope = new Set([...everyLive, 999_999]);
    const { ids, ran } = await tenPages(scope);
    expect(ids).toHaveLength(500);
    expect(ids).toEqual(await companyPages(scope, 500));
    // The first page and the pages by cursor: two statements, each on its kept plan.
    expect(ran).toEqual({ generic: 10, custom: 0 });
    // That generic plan walks the company's index and stops at the page (it could have read and
    // sorted the history of every wallet named).
    sent = [];
    await list({ walletIds: scope });
    expect(await lastPlanTouched()).toBeLessThanOrEqual(200);
  });

  /** The plan of the last list statement `list` ran, executed again on its generic plan; history rows it touched. */
  async function lastPlanTouched(): Promise<number> {
    const last = sent.filter((x) => x.prepared?.startsWith('walletd_list_transactions_')).pop() as Sent;
    await one.raw('set plan_cache_mode = force_generic_plan');
    const { rows: explained } = await one.raw(
      `explain (analyze, format json) execute ${last.prepared}(${last.bindings.map(literal).join(', ')})`,
    );
    await one.raw('reset plan_cache_mode');
    const plan = nodes((explained[0] as { 'QUERY PLAN': [{ Plan: PlanNode }] })['QUERY PLAN'][0].Plan);
    const history = plan.filter((n) => n['Relation Name'] && /^(transfers|withdrawals)/.test(n['Relation Name']));
    const touched = (n: PlanNode) => ((n['Actual Rows'] ?? 0) + (n['Rows Removed by Filter'] ?? 0)) * (n['Actual Loops'] ?? 1);
    return history.reduce((sum, n) => sum + touched(n), 0);
  }

  // Issue 48 §5: such a page was planned for its ids on every call (9.5 ms of planning with 1,000
  // ids at 1M transfers). It now walks the company's rows up to a cap on one generic plan.
  it('leaving one live wallet out: exactly the named wallets’ history, on one generic plan that stops at the page', async () => {
    const scope = new Set(everyLive.filter((id) => id !== scope0()));
    const { ids, ran } = await tenPages(scope);
    expect(ids).toHaveLength(500);
    expect(ids.some((x) => x.endsWith(`:${scope0()}`))).toBe(false);
    expect(ids).toEqual(await companyPages(scope, 500));
    expect(ran).toEqual({ generic: 10, custom: 0 });
    sent = [];
    await list({ walletIds: scope });
    // Nine wallets in ten: a page of 50 a side is about 56 company rows (the walk may read 1,000).
    expect(await lastPlanTouched()).toBeLessThanOrEqual(400);
  });

  it('at the end of the history: the rows left, on the generic plan (the walk ran out before its cap)', async () => {
    const scope = new Set(everyLive.filter((id) => id !== scope0()));
    const oldest = await t.db.raw(
      `select (extract(epoch from created_at) * 1000000)::bigint::text as us, id from transfers
        where company_id = ? order by created_at, id offset 39 limit 1`,
      [s.companyId],
    );
    const after = `${oldest.rows[0].us}.d.${oldest.rows[0].id}`;
    const whole = await list({ after, limit: 200 });
    expect(whole.next).toBeNull();
    const want = whole.transactions.filter((r) => scope.has(r.walletId)).map((r) => `${r.kind}:${r.id}`);
    expect(want.length).toBeGreaterThan(0);
    expect(want.length).toBeLessThan(50);
    const before = await plans();
    const page = await list({ walletIds: scope, after });
    expect(page.transactions.map((r) => `${r.kind}:${r.id}`)).toEqual(want);
    expect(page.next).toBeNull();
    const customRuns = (await plans()).reduce((n, p) => n + p.custom, 0) - before.reduce((n, p) => n + p.custom, 0);
    expect(customRuns).toBe(0);
  });

  it('wallets quiet in the company’s recent history: the walk gives up at its cap and the page is planned for them', async () => {
    // Seventeen wallets of the same company, one of which received three transfers 20 months ago:
    // every recent row is another wallet's, so no bounded walk of the company's index finds them.
    const quietIds: number[] = (
      await t
        .db('wallets')
        .insert(
          Array.from({ length: 17 }, (_, n) => ({
            company_id: s.companyId,
            name: `q${n}`,
            chain: 'ethereum',
            network: 'devnet',
            secret_envelope: {},
          })),
        )
        .returning('id')
    ).map((r: { id: number }) => r.id);
    await t.db.raw(
      `insert into transfers (company_id, wallet_id, address_id, chain, network, tx_hash, tx_key, event_index, direction,
                              event_type, asset_key, amount, from_address, to_address, block_number, block_hash, status,
                              confirmations, created_at, updated_at)
       select ?, ?, ?, 'ethereum', 'devnet', h, h, 0, 'incoming', 'native_transfer', ?, 1000, '0x' || repeat('1', 40),
              '0x' || repeat('2', 40), 1, '0x' || md5('quiet'), 'confirmed', 12, at, at
         from generate_series(1, 3) i,
              lateral (select '0x' || md5('quiet' || i) || md5('q' || i) as h, now() - interval '20 months' - i * interval '1 minute' as at) x`,
      [s.companyId, quietIds[5] as number, null, asset.key],
    );
    const want = (
      await t
        .db('transfers')
        .whereIn('wallet_id', quietIds)
        .orderBy([
          { column: 'created_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ])
    ).map((r) => `deposit:${r.id}:${r.wallet_id}`);
    expect(want).toHaveLength(3);
    const before = await plans();
    const page = await list({ walletIds: new Set(quietIds) });
    expect(page.transactions.map((r) => `${r.kind}:${r.id}:${r.walletId}`)).toEqual(want);
    expect(page.next).toBeNull();
    // The walk (generic) and the page planned for the ids (custom) both ran.
    const now = await plans();
    const sum = (ps: typeof now, k: 'generic' | 'custom') => ps.reduce((n, p) => n + p[k], 0);
    expect([sum(now, 'generic') - sum(before, 'generic'), sum(now, 'custom') - sum(before, 'custom')]).toEqual([1, 1]);
  });
  const scope0 = () => scope.walletIds[0] as number;
});
