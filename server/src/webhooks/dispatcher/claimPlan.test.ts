import { createDb, type Db } from '@walletd/core';
import {
  call,
  createTestDatabase,
  recordDeposit,
  seedCompany,
  startTestApp,
  type TestApp,
  type TestDatabase,
  withNestedPlans,
} from '@walletd/test-harness';
import { claimDue, recordAttempts } from './deliveryStore';

/**
 * Regression (issue 17, found with auto_explain in the outbox bench): a dispatcher connection that
 * first claimed while the queue table was empty kept a plan scanning the whole table, and every
 * later claim and record read every delivery ever made. The plans must walk the indexes however
 * the table grew since, with no ANALYZE in between (autovacuum is off here to make sure of that).
 */
let t: TestDatabase;
let app: TestApp;
let one: Db;

beforeAll(async () => {
  t = await createTestDatabase();
  app = await startTestApp(t.db, { webhooks: { allowCidrs: ['127.0.0.0/8'] } });
  // One connection: the statements planned by claimDue are the ones EXPLAIN EXECUTE reads below.
  one = createDb({ url: t.url, poolMax: 1 });
  await noAutovacuum(t.db);
});

/** Autovacuum off on the claim's tables: on each month of `events` (a partitioned table has no storage of its own). */
async function noAutovacuum(db: Db): Promise<void> {
  const { rows } = await db.raw(`select inhrelid::regclass::text as name from pg_inherits where inhparent = 'events'::regclass`);
  for (const table of ['webhook_deliveries', 'webhooks', ...rows.map((r: { name: string }) => r.name)])
    await db.raw(`alter table ${table} set (autovacuum_enabled = false)`);
}
afterAll(async () => {
  await one.destroy();
  await app.close();
  await t.drop();
});

/** The node types of the plan PostgreSQL keeps for a named statement on `one`'s connection. */
async function planNodes(execute: string, on: Db = one): Promise<string[]> {
  const { rows } = await on.raw(`explain (format json) ${execute}`);
  return nodesOf(rows[0]['QUERY PLAN'][0].Plan);
}

/** Node types in one plan (EXPLAIN's or auto_explain's JSON). */
function nodesOf(plan: Record<string, unknown>): string[] {
  const nodes: string[] = [];
  const walk = (n: Record<string, unknown>) => {
    const on = n['Relation Name'] ? ` on ${n['Relation Name']}` : '';
    const index = n['Index Name'] ? ` using ${n['Index Name']}` : '';
    nodes.push(`${n['Node Type']}${on}${index}${n['Index Cond'] ? ` ${n['Index Cond']}` : ''}`);
    for (const child of (n.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
  };
  walk(plan);
  return nodes;
}

/**
 * Runs a claim on `on` (a pool of one connection) with auto_explain reporting, as notices, the
 * plans of the statements the claim function runs inside (migration 040): the node types of all
 * of them together, and the claim's result.
 */
async function claimPlans(
  on: Db,
  claim: () => ReturnType<typeof claimDue>,
): Promise<{ nodes: string[]; claimed: Awaited<ReturnType<typeof claimDue>> }> {
  const { result: claimed, plans } = await withNestedPlans(on, claim);
  return { nodes: plans.flatMap(nodesOf), claimed };
}

it('claims and records through the indexes after the queue grew from empty without an ANALYZE', async () => {
  const s = await seedCompany(t.db);
  const walletId = (
    await call(app.url, 'POST', '/v1/wallets', { key: s.rootKey, body: { name: 'w', chain: 'ethereum', network: 'sepolia' } })
  ).body.id;
  expect(
    (
      await call(app.url, 'POST', '/v1/webhooks', {
        key: s.rootKey,
        body: { type: 'api', config: { url: 'http://127.0.0.1:9/hook' }, events: ['*'] },
      })
    ).status,
  ).toBe(201);
  await t.db.raw('analyze webhook_deliveries; analyze events');

  // The first claim and record on this connection, while the queue is empty: the plans are made now.
  expect(await claimDue(one, 10, 60_000, 8)).toEqual([]);
  await recordAttempts(one, [
    { id: 0, webhookId: 0, leaseUs: 0, ok: true, responseCode: 200, responseBody: null, error: null, retryInSeconds: 0 },
  ]);

  // Then 3,000 deliveries done and three waiting.
  await t.db.raw(
    `with e as (
       insert into events (id, company_id, type, chain, network, wallet_id, body)
       select gen_random_uuid(), ?, 'deposit.confirmed', 'ethereum', 'sepolia', ?, '{}' from generate_series(1, 3000)
       returning id)
     insert into webhook_deliveries (webhook_id, event_id, event_type, status, attempts, next_attempt_at)
     select (select id from webhooks where company_id = ?), id, 'deposit.confirmed', 'delivered', 1, null from e`,
    [s.companyId, walletId, s.companyId],
  );
  const waiting = [];
  for (let i = 0; i < 3; i++) waiting.push((await recordDeposit(t.db, s.companyId, walletId)).envelope.id);

  const hookId = (await t.db('webhooks').where({ company_id: s.companyId }).first('id')).id;
  // The claim's two statements (the webhooks' lock, the claim), planned inside the function.
  const { nodes: claim, claimed } = await claimPlans(one, () => claimDue(one, 10, 60_000, 8));
  expect(claim.filter((n) => n.startsWith('Seq Scan on webhook_deliveries'))).toEqual([]);
  expect(claim.some((n) => n.startsWith('Index Scan on webhook_deliveries using webhook_deliveries_due_by_webhook'))).toBe(true);
  expect(claim.some((n) => n.startsWith('Function Scan'))).toBe(true);
  const record = await planNodes(
    `execute walletd_record_attempts_with_breaker('{1}'::bigint[], '{0}'::bigint[], '{t}'::boolean[], '{200}'::int[], '{null}'::text[], '{null}'::text[], '{0}'::float8[], '{${hookId}}'::int[], 5)`,
  );
  expect(record.filter((n) => n.startsWith('Seq Scan on webhook_deliveries'))).toEqual([]);
  // By primary key for the batch's ids, not a walk of every delivery into a hash.
  expect(record).toContain('Index Scan on webhook_deliveries using webhook_deliveries_pkey (id = ANY ($1))');

  // The scan settings were only for building the plans: the session's other statements plan as usual.
  for (const setting of ['enable_seqscan', 'enable_bitmapscan', 'enable_sort']) {
    expect((await one.raw(`show ${setting}`)).rows[0][setting]).toBe('on');
  }

  // And the claim took exactly the waiting ones, oldest first.
  expect(claimed.map((d) => d.eventId)).toEqual(waiting);
});

it('claims from the head of a large backlog on a connection opened after it arrived, statistics never gathered, and after an ANALYZE replans it', async () => {
  // The outbox bench's backlog: a fresh table filled before any dispatcher ran. A plan joining the
  // webhook first read all of its pending rows through webhook_deliveries_one_pending and sorted
  // them for every claim of 31 (12 ms per claim at 12,000 pending).
  const fresh = await createTestDatabase();
  const freshApp = await startTestApp(fresh.db, { webhooks: { allowCidrs: ['127.0.0.0/8'] } });
  const single = createDb({ url: fresh.url, poolMax: 1 });
  try {
    await noAutovacuum(fresh.db);
    const s = await seedCompany(fresh.db);
    const walletId = (
      await call(freshApp.url, 'POST', '/v1/wallets', { key: s.rootKey, body: { name: 'w', chain: 'ethereum', network: 'sepolia' } })
    ).body.id;
    await call(freshApp.url, 'POST', '/v1/webhooks', {
      key: s.rootKey,
      body: { type: 'api', config: { url: 'http://127.0.0.1:9/hook' }, events: ['*'] },
    });
    await fresh.db.raw(
      `with e as (
         insert into events (id, company_id, type, chain, network, wallet_id, body)
         select gen_random_uuid(), ?, 'deposit.confirmed', 'ethereum', 'sepolia', ?, '{}' from generate_series(1, 3000)
         returning id)
       insert into webhook_deliveries (webhook_id, event_id, event_type, status, next_attempt_at)
       select (select id from webhooks where company_id = ?), id, 'deposit.confirmed', 'pending', now() - interval '1 hour' from e`,
      [s.companyId, walletId, s.companyId],
    );
    const oldest = (await fresh.db('webhook_deliveries').orderBy(['next_attempt_at', 'id']).limit(31).select('id')).map((r) =>
      Number(r.id),
    );

    const { nodes: plan, claimed } = await claimPlans(single, () => claimDue(single, 31, 60_000, 100));
    expect(claimed.map((d) => Number(d.id))).toEqual(oldest);
    const hookId = (await fresh.db('webhooks').where({ company_id: s.companyId }).first('id')).id;
    // The webhook's due rows are walked in order on its index and the walk stops at the room
    // left: no scan of the backlog, no sort of it (what is sorted is the few rows taken).
    expect(plan.some((n) => n.startsWith('Index Scan on webhook_deliveries using webhook_deliveries_due_by_webhook'))).toBe(true);
    expect(plan.filter((n) => n.includes('webhook_deliveries_one_pending') || n.startsWith('Seq Scan'))).toEqual([]);

    // An ANALYZE now (autovacuum's, a minute into the backlog) invalidates both plans: PostgreSQL
    // replans them at their next run with the session's normal settings and these statistics,
    // which make a scan of 3,000 rows look cheap. They must still read by key, not hash a scan of
    // every delivery and every event into each claim and record.
    await fresh.db.raw('analyze webhook_deliveries; analyze events; analyze webhooks');
    const { nodes: replanned, claimed: next } = await claimPlans(single, () => claimDue(single, 31, 60_000, 100));
    expect(next).toHaveLength(31);
    // Months of events that hold rows are read by key; an empty one (a month ahead, the default
    // partition) may be planned as a scan of nothing, replanned once autovacuum analyzes its rows.
    const { rows: filled } = await fresh.db.raw('select distinct tableoid::regclass::text as name from events');
    const scanned = (n: string) =>
      n === 'Seq Scan on webhook_deliveries' || filled.some((f: { name: string }) => n === `Seq Scan on ${f.name}`);
    expect(replanned.filter(scanned)).toEqual([]);
    expect(replanned.some((n) => n.startsWith('Index Scan on webhook_deliveries using webhook_deliveries_due_by_webhook'))).toBe(true);
    // One probe per month of events (partitioned by month, migration 027), by key.
    expect(replanned.some((n) => /^Index Scan on events_\w+ using events_\w+_pkey \(id = c\.event_id\)$/.test(n))).toBe(true);
    await recordAttempts(single, [
      {
        id: next[0]?.id as number,
        webhookId: next[0]?.webhookId as number,
        leaseUs: next[0]?.leaseUs as number,
        ok: true,
        responseCode: 200,
        responseBody: null,
        error: null,
        retryInSeconds: 0,
      },
    ]);
    const record = await planNodes(
      `execute walletd_record_attempts_with_breaker('{1}'::bigint[], '{0}'::bigint[], '{t}'::boolean[], '{200}'::int[], '{null}'::text[], '{null}'::text[], '{0}'::float8[], '{${hookId}}'::int[], 5)`,
      single,
    );
    expect(record.filter((n) => n.startsWith('Seq Scan on webhook_deliveries'))).toEqual([]);
    expect((await fresh.db('webhook_deliveries').where({ id: next[0]?.id }).first('status')).status).toBe('delivered');
  } finally {
    await single.destroy();
    await freshApp.close();
    await fresh.drop();
  }
});
