import { createHash } from 'node:crypto';
import type { Db } from '@walletd/core';
import { pendingTransfers, rejectDetached, rewindTo } from '@walletd/indexer';
import {
  call,
  createTestDatabase,
  seedCompany,
  startTestApp,
  type Seeded,
  type TestApp,
  type TestDatabase,
  nativeAsset,
  onboardMember,
  startConsole,
  type ConsoleServer,
} from '@walletd/test-harness';
import { historyTime, seedHistory, seedHistoryScope, type HistoryScope } from '../harness/historySeed';

/**
 * Issue 32: every API read and every per-round indexer query costs O(page) or O(pending), not
 * O(history). The history of one company is seeded (60k transfers, 120k events and deliveries,
 * 12k withdrawals), ANALYZEd, then each read runs for real (through HTTP where a user meets it)
 * while the test records the SQL it sent; each statement is EXPLAINed with the same parameters and
 * its plan must read no history table by a sequential scan. A plan can only say how it reads, not
 * how long it takes: this is the check that fails when an index is dropped or a query stops
 * matching one (timings are `npm run bench -- scale`).
 */
const HISTORY = ['transfers', 'events', 'withdrawals', 'webhook_deliveries'];
const SIZE = 60_000;

interface Captured {
  sql: string;
  bindings: unknown[];
  /** runPrepared's name and whether it runs on its generic plan (the list pages). */
  prepared?: string;
  genericPlan?: boolean;
}

/** A bound value as a literal of EXECUTE's arguments (each is cast to its parameter's type). */
const literal = (v: unknown): string => `'${(Array.isArray(v) ? `{${v.join(',')}}` : String(v)).replace(/'/g, "''")}'`;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

let t: TestDatabase;
let app: TestApp;
let s: Seeded;
let scope: HistoryScope;
let captured: Captured[] = [];
let con: ConsoleServer;
const asset = nativeAsset('ethereum', 'devnet');

const SCANS = ['Seq Scan', 'Index Scan', 'Index Only Scan', 'Bitmap Heap Scan'];

/** What the plan read from history tables: sequential scans by name, and every row its scans touched. */
function reads(node: PlanNode): { seq: string[]; rows: number } {
  const table = node['Relation Name'] ?? '';
  const own = SCANS.includes(node['Node Type']) && HISTORY.includes(table);
  const touched = own
    ? (node['Actual Rows'] ?? 0) * (node['Actual Loops'] ?? 1) +
      (node['Rows Removed by Filter'] ?? 0) * (node['Actual Loops'] ?? 1) +
      (node['Rows Removed by Index Recheck'] ?? 0)
    : 0;
  const below = (node.Plans ?? []).map(reads);
  return {
    seq: [...(own && node['Node Type'] === 'Seq Scan' ? [table] : []), ...below.flatMap((b) => b.seq)],
    rows: touched + below.reduce((n, b) => n + b.rows, 0),
  };
}

/**
 * EXPLAIN ANALYZE in a transaction rolled back (a statement that writes leaves nothing behind).
 * A statement runPrepared runs on its generic plan is explained on that plan (EXECUTE of its name
 * in the same mode), not on one made for these values, which is not the plan the page runs.
 */
async function explain(db: Db, q: Captured): Promise<PlanNode> {
  // Both kinds reach the event with pg's $n placeholders: knex's own statements and runPrepared's.
  const c = (await db.client.acquireConnection()) as { query: (x: object) => Promise<{ rows: unknown[] }> };
  try {
    await c.query({ text: 'begin' });
    if (q.genericPlan && q.prepared) {
      await c.query({ name: q.prepared, text: q.sql, values: q.bindings });
      await c.query({ text: 'set local plan_cache_mode = force_generic_plan' });
    }
    const { rows } =
      q.genericPlan && q.prepared
        ? await c.query({ text: `explain (analyze, format json) execute ${q.prepared}(${q.bindings.map(literal).join(', ')})` })
        : await c.query({ text: `explain (analyze, format json) ${q.sql}`, values: q.bindings });
    return (rows[0] as { 'QUERY PLAN': [{ Plan: PlanNode }] })['QUERY PLAN'][0].Plan;
  } finally {
    await c.query({ text: 'rollback' });
    await db.client.releaseConnection(c);
  }
}

interface Read {
  sql: string;
  /** Explained (and run) on its generic plan. */
  generic: boolean;
  seq: string[];
  rows: number;
}

/** Runs `read`, then EXPLAINs every statement it sent that reads a history table. */
async function plansOf(read: () => Promise<unknown>, settle?: () => Promise<unknown>): Promise<Read[]> {
  captured = [];
  await read();
  const sent = captured.slice();
  await settle?.();
  const touching = sent.filter((q) => HISTORY.some((table) => new RegExp(`\\b${table}\\b`).test(q.sql)));
  expect(touching.length).toBeGreaterThan(0);
  const out = [];
  for (const q of touching)
    out.push({ sql: q.sql.replace(/\s+/g, ' ').slice(0, 120), generic: q.genericPlan === true, ...reads(await explain(t.db, q)) });
  return out;
}

/**
 * The statements that scan a history table, or touch more than `bound` of its rows: a page (50),
 * the pending set (560), an hour of events (2,400) or a reorg's blocks are far below it; the
 * seeded history (60k transfers, 120k events) is far above.
 */
const noScans = (plans: Read[], bound = 5_000) => plans.filter((p) => p.seq.length > 0 || p.rows > bound);

beforeAll(async () => {
  t = await createTestDatabase();
  s = await seedCompany(t.db);
  scope = await seedHistoryScope(t.db, { companyId: s.companyId });
  await seedHistory(t.db, scope, { to: SIZE, assetKey: asset.key, withdrawalEvery: 5 });
  await t.db.raw('analyze');
  t.db.on('query', (q: Captured) => captured.push(q));
  app = await startTestApp(t.db);
  con = await startConsole(t.db);
}, 180_000);

afterAll(async () => {
  await con?.close();
  await app?.close();
  await t?.drop();
});

describe('reads bounded by the page on a seeded history (plans, issue 32)', () => {
  const get = async (path: string) => {
    const res = await call(app.url, 'GET', `/v1${path}`, { key: s.rootKey });
    expect(res.status).toBe(200);
    return res.body;
  };

  it('GET /v1/transactions, first page: no scan of history', async () => {
    const plans = await plansOf(() => get('/transactions?limit=50'));
    expect(noScans(plans)).toEqual([]);
    // The plan checked is the one the page runs on: its generic plan (issue 32).
    expect(plans.map((p) => p.generic)).toEqual([true]);
  });

  it('GET /v1/transactions?search=<hash>: the hash reaches its index on both sides of the union', async () => {
    const { tx_hash } = await t
      .db('transfers')
      .where({ company_id: s.companyId })
      .orderBy('id')
      .offset(SIZE / 2)
      .first('tx_hash');
    const plans = await plansOf(async () => {
      const body = await get(`/transactions?search=${tx_hash.toUpperCase().replace('0X', '0x')}`);
      expect(body.transactions.map((x: { txHash: string }) => x.txHash)).toEqual([tx_hash]);
    });
    expect(noScans(plans)).toEqual([]);
  });

  it('GET /v1/transactions?walletId=: no scan of history', async () => {
    const plans = await plansOf(() => get(`/transactions?walletId=${scope.walletIds[3]}&limit=50`));
    expect(noScans(plans)).toEqual([]);
    expect(plans.map((p) => p.generic)).toEqual([true]);
  });

  it('GET /v1/transactions deep by cursor: the page after it is read from the index, and follows it', async () => {
    const first = await get('/transactions?limit=3');
    const deep = `${BigInt(historyTime(SIZE / 3).getTime()) * 1000n}.d.999999999`;
    const plans = await plansOf(async () => {
      const body = await get(`/transactions?limit=50&after=${first.next}`);
      expect(body.transactions[0].id).not.toBe(first.transactions[2].id);
      await get(`/transactions?limit=50&after=${deep}`);
    });
    expect(noScans(plans)).toEqual([]);
  });

  it('GET /v1/wallets/:id/balances: one index lookup of the balance ledger, no history table read', async () => {
    captured = [];
    const body = await get(`/wallets/${scope.walletIds[0]}/balances`);
    expect(body.balances.length).toBeGreaterThan(0);
    const sent = captured.slice();
    expect(sent.filter((q) => HISTORY.some((table) => new RegExp(`\\b${table}\\b`).test(q.sql)))).toEqual([]);
    const kept = sent.filter((q) => /\bbalance_ledger\b/.test(q.sql));
    expect(kept).toHaveLength(1);
    const plan = await explain(t.db, kept[0] as Captured);
    // The wallet's rows by the primary key: one per asset, however long the history.
    const scans = (n: PlanNode): PlanNode[] =>
      [n, ...(n.Plans ?? []).flatMap(scans)].filter((x) => x['Relation Name'] === 'balance_ledger');
    expect(scans(plan).map((n) => n['Node Type'])).toEqual([expect.stringMatching(/^(Index Scan|Index Only Scan|Bitmap Heap Scan)$/)]);
    expect(scans(plan)[0]?.['Actual Rows']).toBeLessThanOrEqual(2);
  });

  it('a webhook replay behind a backlog of pending deliveries: one probe per event, not a walk of the backlog', async () => {
    // A receiver down: an earlier hour queued and still pending, on statistics from before it (no
    // ANALYZE since). Pending events are skipped by the latest delivery of each, one probe; a probe
    // of the pending rows was planned on the dispatcher's due index (webhook_id, next_attempt_at,
    // id) and walked the webhook's whole backlog for every event: 2,401 x 2,401 rows here.
    const until = historyTime(SIZE - 1);
    const hour = (back: number) => ({
      since: new Date(until.getTime() - (back + 1) * 3_600_000).toISOString(),
      until: new Date(until.getTime() - back * 3_600_000).toISOString(),
    });
    const replay = (w: { since: string; until: string }) =>
      call(app.url, 'POST', `/v1/webhooks/${scope.webhookId}/replay`, { key: s.rootKey, body: w });
    const backlog = await replay(hour(5));
    expect(backlog.status).toBe(202);
    expect(backlog.body.queued).toBeGreaterThan(2_000);
    const plans = await plansOf(async () => {
      const res = await replay(hour(0));
      expect(res.status).toBe(202);
      expect(res.body.queued).toBeGreaterThan(2_000);
    });
    expect(noScans(plans)).toEqual([]);
  });

  it('a webhook replay of a one-hour window: no scan of events', async () => {
    const until = historyTime(SIZE - 1);
    const since = new Date(until.getTime() - 3_600_000);
    const plans = await plansOf(
      async () => {
        const res = await call(app.url, 'POST', `/v1/webhooks/${scope.webhookId}/replay`, {
          key: s.rootKey,
          body: { since: since.toISOString(), until: until.toISOString() },
        });
        expect(res.status).toBe(202);
        // Statistics as autovacuum would have them after the page just queued (planned on the
        // counts from before it, the former pending-delivery probe walked every pending delivery
        // of the webhook per event: the test above checks that case).
      },
      () => t.db.raw('analyze webhook_deliveries'),
    );
    expect(noScans(plans)).toEqual([]);
  });
});

describe("the console's transaction search by hash or address (plans, issue 32)", () => {
  let member: Awaited<ReturnType<typeof onboardMember>>;
  beforeAll(async () => {
    member = await onboardMember(con, t.db, { companyId: s.companyId, email: 'plans@acme.test', role: 'admin' });
  });
  const search = async (q: string) => {
    const res = await member.b.call('GET', `/console/api/transactions?q=${encodeURIComponent(q)}`);
    expect(res.status).toBe(200);
    return res.body.transactions as { kind: string; txHash: string }[];
  };
  const middle = () =>
    t
      .db('transfers')
      .where({ company_id: s.companyId })
      .orderBy('id')
      .offset(SIZE / 2)
      .first('tx_hash', 'from_address', 'to_address');

  it('a deposit hash (any case): no scan of history', async () => {
    const { tx_hash } = await middle();
    const plans = await plansOf(async () =>
      expect((await search(tx_hash.toUpperCase().replace('0X', '0x'))).map((x) => x.txHash)).toEqual([tx_hash]),
    );
    expect(noScans(plans)).toEqual([]);
  });

  it('a sender and a recipient address of a deposit: no scan of history', async () => {
    const { tx_hash, from_address, to_address } = await middle();
    const plans = await plansOf(async () => {
      expect((await search(from_address.toUpperCase().replace('0X', '0x'))).map((x) => x.txHash)).toEqual([tx_hash]);
      expect((await search(to_address)).map((x) => x.txHash)).toEqual([tx_hash]);
    });
    expect(noScans(plans)).toEqual([]);
  });

  it("a withdrawal's hash, source and recipient: no scan of history", async () => {
    const w = await t
      .db('withdrawals')
      .where({ company_id: s.companyId })
      .orderBy('id')
      .offset(100)
      .first('tx_hash', 'from_address', 'to_address');
    const plans = await plansOf(async () => {
      for (const q of [w.tx_hash, w.from_address, w.to_address]) expect((await search(q)).map((x) => x.txHash)).toEqual([w.tx_hash]);
    });
    expect(noScans(plans)).toEqual([]);
  });
  it("a recipient among a withdrawal's outputs (base58 exactly, 0x-hex in any case): found through its index", async () => {
    const base58 = 'EQBvW8Z5huBkMJYdnfAEM5JqTNkuWX3diqYENkWsIL0XggGG';
    const hex = '0x52908400098527886E0F7030069857D2E4169EE7';
    const rows = await t.db
      .raw(
        `insert into withdrawals (company_id, wallet_id, intent_hash, chain, network, asset_key, amount, to_address, from_address,
                                source_addresses, status, tx_hash, fee, confirmations, signed_at, created_at, updated_at, outputs)
       select company_id, wallet_id, 'outputs-intent', chain, network, asset_key, amount, to_address, from_address,
              source_addresses, status, '0x' || md5('outputs-case'), fee, confirmations, signed_at, created_at, updated_at, ?::jsonb
         from withdrawals where company_id = ? order by id limit 1
       returning id`,
        [
          JSON.stringify([
            { toAddress: base58, amount: '1' },
            { toAddress: hex, amount: '2' },
          ]),
          s.companyId,
        ],
      )
      .then((r: { rows: { id: number }[] }) => r.rows);
    const id = rows[0]?.id;
    const hash = `0x${createHash('md5').update('outputs-case').digest('hex')}`;
    const plans = await plansOf(async () => {
      for (const q of [base58, hex.toLowerCase()]) expect((await search(q)).map((x) => x.txHash)).toEqual([hash]);
      expect(await search(base58.toLowerCase())).toEqual([]);
    });
    await t.db('withdrawals').where({ id }).delete();
    expect(noScans(plans)).toEqual([]);
  });
});

describe('indexer round queries bounded by the pending set (plans, issue 32)', () => {
  const k = { chain: 'ethereum', network: 'devnet' };

  it('pending transfers: no scan of history', async () => {
    const plans = await plansOf(async () => {
      expect((await pendingTransfers(t.db, k)).length).toBe(560);
    });
    expect(noScans(plans)).toEqual([]);
  });

  it('detached candidates and their rejection, and a rewind: no scan of history', async () => {
    const plans = await plansOf(() =>
      t.db
        .transaction(async (trx) => {
          expect(await rejectDetached(trx, k, new Map([[asset.key, asset]]))).toBe(140);
          await rewindTo(trx, k, BigInt(SIZE / 4 - 100), '0xancestor');
          throw new Error('rolled back');
        })
        .catch((e: Error) => expect(e.message).toBe('rolled back')),
    );
    expect(noScans(plans)).toEqual([]);
  });
});
