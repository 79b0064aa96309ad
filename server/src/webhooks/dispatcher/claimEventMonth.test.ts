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
 * Issue 43 §5 (migration 047): a delivery carries its event's `created_at`, and the claim reads the
 * event by (id, created_at), so one month's partition is probed instead of every month's. Every
 * way a delivery is made writes it; a row without one (queued by the version before 047, during a
 * rolling upgrade) is still found in whatever month its event lies; an event in an old month
 * (a replay) is found by its own month, not the delivery's.
 */
let t: TestDatabase;
let app: TestApp;
let one: Db;

beforeAll(async () => {
  t = await createTestDatabase();
  app = await startTestApp(t.db, { webhooks: { allowCidrs: ['127.0.0.0/8'] } });
  one = createDb({ url: t.url, poolMax: 1 });
});
afterAll(async () => {
  await one.destroy();
  await app.close();
  await t.drop();
});

/** Index conditions of the statements the claim function runs, from auto_explain's notices. */
async function claimWithPlans(claim: () => ReturnType<typeof claimDue>) {
  const { result: claimed, plans } = await withNestedPlans(one, claim);
  const conds: string[] = [];
  const walk = (n: Record<string, unknown>) => {
    if (typeof n['Relation Name'] === 'string' && String(n['Relation Name']).startsWith('events_') && n['Index Cond'])
      conds.push(String(n['Index Cond']));
    for (const c of (n.Plans as Record<string, unknown>[] | undefined) ?? []) walk(c);
  };
  for (const plan of plans) walk(plan);
  return { claimed, conds };
}

it("claims each delivery with its own event's body, by the event's month when the row names it", async () => {
  const s = await seedCompany(t.db);
  const walletId = (
    await call(app.url, 'POST', '/v1/wallets', { key: s.rootKey, body: { name: 'w', chain: 'ethereum', network: 'sepolia' } })
  ).body.id;
  const hook = await call(app.url, 'POST', '/v1/webhooks', {
    key: s.rootKey,
    body: { type: 'api', config: { url: 'http://127.0.0.1:9/hook' }, events: ['*'] },
  });
  expect(hook.status).toBe(201);
  const webhookId = hook.body.id as number;

  // Recorded now: the outbox's own insert writes the event's created_at on its delivery.
  const fresh = (await recordDeposit(t.db, s.companyId, walletId)).envelope.id;
  const row = await t
    .db('webhook_deliveries as d')
    .join('events as e', 'e.id', 'd.event_id')
    .where('d.event_id', fresh)
    .first('d.event_created_at', 'e.created_at');
  expect(row.event_created_at).toEqual(row.created_at);

  // Events of a month long past (the default partition or that month's), queued: with their
  // created_at (as a replay does), without (a row of the previous version), and with one that is
  // not the event's (microseconds lost): that row is found by id in every month, not dropped.
  const old = await t.db.raw(
    `insert into events (id, company_id, type, chain, network, wallet_id, body, created_at)
     select gen_random_uuid(), ?, 'deposit.confirmed', 'ethereum', 'sepolia', ?, '{"old":' || n || '}',
       now() - interval '400 days' + n * interval '1.000123 second'
     from generate_series(1, 3) n returning id, body`,
    [s.companyId, walletId],
  );
  const [named, unnamed, skewed] = old.rows as [{ id: string; body: string }, { id: string; body: string }, { id: string; body: string }];
  await t.db.raw(
    `insert into webhook_deliveries (webhook_id, event_id, event_created_at, event_type, next_attempt_at)
     select ?, e.id, case when e.id = ? then e.created_at when e.id = ? then date_trunc('milliseconds', e.created_at) end,
       'deposit.confirmed', now()
     from events e where e.id = any(?::uuid[])`,
    [webhookId, named.id, skewed.id, [named.id, unnamed.id, skewed.id]],
  );

  const { claimed, conds } = await claimWithPlans(() => claimDue(one, 10, 60_000, 10));
  const bodies = new Map(claimed.map((d) => [d.eventId, d.body]));
  expect(bodies.size).toBe(4);
  expect(JSON.parse(bodies.get(fresh) as string).id).toBe(fresh);
  expect(bodies.get(named.id as string)).toBe(named.body);
  expect(bodies.get(unnamed.id as string)).toBe(unnamed.body);
  expect(bodies.get(skewed.id as string)).toBe(skewed.body);
  // The lookup names the partition key (pruned to one month at run time) and keeps the by-id
  // probe for rows without it.
  expect(conds).toContain('((id = c.event_id) AND (created_at = c.event_created_at))');
  expect(conds).toContain('(id = c.event_id)');

  // Delivered; then a redelivery of the row without it and a replay of the others carry the
  // events' own created_at.
  await recordAttempts(
    one,
    claimed.map((d) => ({ ...d, ok: true, responseCode: 200, responseBody: null, error: null, retryInSeconds: 0 })),
  );
  const first = await t.db('webhook_deliveries').where({ event_id: unnamed.id }).first('id');
  expect((await call(app.url, 'POST', `/v1/webhooks/${webhookId}/deliveries/${first.id}/redeliver`, { key: s.rootKey })).status).toBe(202);
  const since = new Date(Date.now() - 401 * 86_400_000).toISOString();
  expect((await call(app.url, 'POST', `/v1/webhooks/${webhookId}/replay`, { key: s.rootKey, body: { since } })).status).toBe(202);
  const pending = await t
    .db('webhook_deliveries as d')
    .join('events as e', 'e.id', 'd.event_id')
    .where({ 'd.status': 'pending', 'd.webhook_id': webhookId })
    .select('d.event_created_at', 'e.created_at');
  expect(pending).toHaveLength(4);
  for (const p of pending) expect(p.event_created_at).toEqual(p.created_at);
});
