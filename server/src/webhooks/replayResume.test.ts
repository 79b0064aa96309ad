import { call, createTestDatabase, expectSchema, seedCompany, startTestApp, type TestApp, type TestDatabase } from '@walletd/test-harness';
import { validator } from '@walletd/schemas';

// POST /v1/webhooks/:id/replay queues at most 10,000 events per call; a larger window used to
// stop there with nothing telling the caller. Now each answer says whether events remain and
// gives the cursor to continue from (issue 28, section 5).

let t: TestDatabase;
let app: TestApp;

beforeAll(async () => {
  t = await createTestDatabase();
  app = await startTestApp(t.db, { webhooks: { allowCidrs: ['127.0.0.0/8'] }, rateLimit: { writesPerKeyPerMinute: 1000 } });
});
afterAll(async () => {
  await app.close();
  await t.drop();
});

const PAGE = 10_000;

describe('replay of a window larger than one page', () => {
  it('queues every event once across calls, continuing from next until hasMore is false', async () => {
    const s = await seedCompany(t.db);
    const walletId = (
      await call(app.url, 'POST', '/v1/wallets', { key: s.rootKey, body: { name: 'w', chain: 'ethereum', network: 'sepolia' } })
    ).body.id as number;
    const hook = await call(app.url, 'POST', '/v1/webhooks', {
      key: s.rootKey,
      body: { type: 'api', config: { url: 'http://127.0.0.1:9/hook' }, events: ['*'] },
    });
    const id = hook.body.id as number;
    // A past outage's worth of events: one page and one more inside the window, one before it.
    // Written in one statement (the outbox write, per event, is what other tests exercise).
    await t.db.raw(
      `insert into events (id, company_id, type, chain, network, wallet_id, body, created_at)
       select gen_random_uuid(), ?, 'deposit.confirmed', 'ethereum', 'sepolia', ?, json_build_object('n', g)::text,
              timestamptz '2020-01-01T00:00:00Z' + g * interval '1 second'
       from generate_series(0, ?) g`,
      [s.companyId, walletId, PAGE + 1],
    );
    const window = { since: '2020-01-01T00:00:01Z', until: '2020-12-31T00:00:00Z' };
    const replay = (body: Record<string, unknown>) => call(app.url, 'POST', `/v1/webhooks/${id}/replay`, { key: s.rootKey, body });

    const first = await replay(window);
    expect(first.status).toBe(202);
    expectSchema('ReplayResponse', first.body);
    expect(first.body).toEqual({ queued: PAGE, hasMore: true, next: expect.any(String) });
    const second = await replay({ ...window, after: first.body.next });
    expect(second.status).toBe(202);
    expectSchema('ReplayResponse', second.body);
    expect(second.body).toEqual({ queued: 1, hasMore: false, next: null });

    // Every event of the window exactly once, the one before it not at all.
    const [{ n, events }] = (
      await t.db.raw(
        `select count(*)::int as n, count(distinct d.event_id)::int as events from webhook_deliveries d where d.webhook_id = ?`,
        [id],
      )
    ).rows;
    expect({ n, events }).toEqual({ n: PAGE + 1, events: PAGE + 1 });
    const earliest = (await t
      .db('webhook_deliveries as d')
      .join('events as e', 'e.id', 'd.event_id')
      .where('d.webhook_id', id)
      .min('e.created_at as first')
      .first()) as { first: Date };
    expect(earliest.first.toISOString()).toBe(window.since.replace('Z', '.000Z'));
    // Everything is pending now: a replay from the start queues nothing and says so.
    expect((await replay(window)).body).toEqual({ queued: 0, hasMore: false, next: null });
    // After an outage every one of them failed: replaying only the failed ones pages the same way.
    await t.db('webhook_deliveries').where({ webhook_id: id }).update({ status: 'failed', next_attempt_at: null });
    const failed = await replay({ ...window, status: 'failed' });
    expect(failed.body).toEqual({ queued: PAGE, hasMore: true, next: expect.any(String) });
    expect((await replay({ ...window, status: 'failed', after: failed.body.next })).body).toEqual({
      queued: 1,
      hasMore: false,
      next: null,
    });
  });

  it('refuses a cursor it did not give (400 in the error shape)', async () => {
    const s = await seedCompany(t.db);
    const hook = await call(app.url, 'POST', '/v1/webhooks', {
      key: s.rootKey,
      body: { type: 'api', config: { url: 'http://127.0.0.1:9/hook' }, events: ['*'] },
    });
    for (const after of ['abc', '-1', '01', '99999999999999999999', '9223372036854775808']) {
      const r = await call(app.url, 'POST', `/v1/webhooks/${hook.body.id}/replay`, {
        key: s.rootKey,
        body: { since: '2020-01-01T00:00:00Z', after },
      });
      expect({ status: r.status, code: r.body.code }).toEqual({ status: 400, code: 'validation_failed' });
      expect(validator('ErrorBody')(r.body)).toBe(true);
    }
  });
});
