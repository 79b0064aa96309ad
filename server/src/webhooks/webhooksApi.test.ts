import { recordEvent } from '@walletd/core';
import type { Knex } from 'knex';
import {
  call,
  createTestDatabase,
  keyFor,
  recordDeposit,
  seedCompany,
  startTestApp,
  type Seeded,
  type TestApp,
  type TestDatabase,
  expectSchema,
  eventually,
} from '@walletd/test-harness';

let t: TestDatabase;
let app: TestApp;
let strict: TestApp;

beforeAll(async () => {
  t = await createTestDatabase();
  app = await startTestApp(t.db, { webhooks: { allowCidrs: ['127.0.0.0/8'] } });
  strict = await startTestApp(t.db);
});
afterAll(async () => {
  await app.close();
  await strict.close();
  await t.drop();
});

const wallet = async (s: Seeded) =>
  (await call(app.url, 'POST', '/v1/wallets', { key: s.rootKey, body: { name: 'w', chain: 'ethereum', network: 'sepolia' } })).body
    .id as number;
const hook = (key: string, body: Record<string, unknown>, base = app.url) => call(base, 'POST', '/v1/webhooks', { key, body });
const apiHook = (extra: Record<string, unknown> = {}) => ({
  type: 'api',
  config: { url: 'http://127.0.0.1:9/hook' },
  events: ['*'],
  ...extra,
});
const recordEventIn = (trx: Knex.Transaction, companyId: number, walletId: number) =>
  recordEvent(trx, { type: 'deposit.detected', chain: 'ethereum', network: 'sepolia', companyId, walletId, data: { note: 'late' } });

describe('webhook endpoints', () => {
  it('create returns the secret once; list, patch and rotate follow the rules', async () => {
    const s = await seedCompany(t.db);
    const created = await hook(s.rootKey, apiHook({ events: ['deposit.confirmed'] }));
    expect(created.status).toBe(201);
    expectSchema('WebhookWithSecret', created.body);
    expect(created.body.signingSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created.body.walletIds).toEqual([]);
    const id = created.body.id;

    const list = await call(app.url, 'GET', '/v1/webhooks', { key: s.rootKey });
    expectSchema('WebhookList', list.body);
    expect(list.text).not.toContain(created.body.signingSecret);

    const own = await hook(s.rootKey, apiHook({ signingSecret: 'abcdefgh12345678' }));
    expect(own.body.signingSecret).toBe('abcdefgh12345678');
    expect((await hook(s.rootKey, apiHook({ signingSecret: 'x'.repeat(15) }))).status).toBe(400);
    expect((await hook(s.rootKey, apiHook({ signingSecret: 'x'.repeat(257) }))).status).toBe(400);

    const empty = await call(app.url, 'PATCH', `/v1/webhooks/${id}`, { key: s.rootKey, body: {} });
    expect(empty.status).toBe(400);
    expect(empty.body.message).toBe('body must not be empty');
    const type = await call(app.url, 'PATCH', `/v1/webhooks/${id}`, { key: s.rootKey, body: { type: 'slack' } });
    expect(type.body.message).toMatch(/^type cannot be changed/);
    const patched = await call(app.url, 'PATCH', `/v1/webhooks/${id}`, {
      key: s.rootKey,
      body: { enabled: false, events: ['deposit.detected', 'withdrawal.confirmed'] },
    });
    expect(patched.status).toBe(200);
    expectSchema('Webhook', patched.body);
    expect(patched.body).toMatchObject({ enabled: false, events: ['deposit.detected', 'withdrawal.confirmed'] });
    expect(patched.text).not.toContain('signingSecret');

    const rotated = await call(app.url, 'POST', `/v1/webhooks/${id}/rotate-secret`, { key: s.rootKey, body: {} });
    expectSchema('RotateSecretResponse', rotated.body);
    expect(rotated.body.signingSecret).not.toBe(created.body.signingSecret);
    const chosen = await call(app.url, 'POST', `/v1/webhooks/${id}/rotate-secret`, {
      key: s.rootKey,
      body: { signingSecret: `chosen-by-hand-${'y'.repeat(25)}` },
    });
    expect(chosen.body.signingSecret).toBe(`chosen-by-hand-${'y'.repeat(25)}`);
    const noBody = await call(app.url, 'POST', `/v1/webhooks/${id}/rotate-secret`, { key: s.rootKey });
    expect(noBody.status).toBe(200);

    expect((await call(app.url, 'DELETE', `/v1/webhooks/${id}`, { key: s.rootKey })).status).toBe(204);
    expect((await call(app.url, 'PATCH', `/v1/webhooks/${id}`, { key: s.rootKey, body: { enabled: true } })).status).toBe(404);
  });

  it('refuses a signing secret without entropy (whitespace, one character repeated) on create and rotate', async () => {
    const s = await seedCompany(t.db);
    const id = (await hook(s.rootKey, apiHook())).body.id;
    const rotate = (signingSecret: string) =>
      call(app.url, 'POST', `/v1/webhooks/${id}/rotate-secret`, { key: s.rootKey, body: { signingSecret } });
    const message =
      'signingSecret must have at least 16 characters other than whitespace, at least 8 of them different; omit it to have one generated';
    for (const weak of [
      ' '.repeat(16),
      '\t\n'.repeat(20),
      `${' '.repeat(10)}abcdefgh${' '.repeat(10)}`,
      'x'.repeat(16),
      'abababab'.repeat(4),
    ]) {
      for (const r of [await hook(s.rootKey, apiHook({ signingSecret: weak })), await rotate(weak)]) {
        expect({ status: r.status, body: r.body }).toEqual({
          status: 400,
          body: { statusCode: 400, error: 'Bad Request', code: 'validation_failed', message },
        });
      }
    }
    // Spaces inside a secret are fine when there is enough besides them.
    expect((await rotate('correct horse battery staple')).status).toBe(200);
    expect((await hook(s.rootKey, apiHook({ signingSecret: ' padded but 16+ chars ' }))).status).toBe(201);
  });

  it('needs webhooks:manage and applies the wallet-scope rules 3 to 5', async () => {
    const s = await seedCompany(t.db);
    const a = await wallet(s);
    const b = await wallet(s);
    const noManage = await keyFor(t.db, s.companyId, { actions: ['wallets:read'] });
    expect((await call(app.url, 'GET', '/v1/webhooks', { key: noManage.key })).status).toBe(403);
    // Authorization comes before body validation: 403, not 400, for an invalid body.
    expect((await call(app.url, 'POST', '/v1/webhooks', { key: noManage.key, body: { nonsense: true } })).status).toBe(403);
    expect((await call(app.url, 'PATCH', '/v1/webhooks/999999', { key: s.rootKey, body: {} })).status).toBe(404);
    expect((await hook(s.rootKey, apiHook({ walletIds: [3000000000] }))).status).toBe(400);

    const scoped = await keyFor(t.db, s.companyId, { actions: ['webhooks:manage'], walletIds: [a] });
    // Rule 4: all wallets needs a key that sees all wallets.
    const all = await hook(scoped.key, apiHook());
    expect(all.status).toBe(403);
    // Rule 3: every id must be visible.
    const other = await hook(scoped.key, apiHook({ walletIds: [a, b] }));
    expect(other.status).toBe(400);
    expect(other.body.message).toBe(`walletIds: wallet ${b} not found`);
    const mine = await hook(scoped.key, apiHook({ walletIds: [a] }));
    expect(mine.status).toBe(201);
    // Rule 5: the root key's all-wallet and wallet-b webhooks stay invisible to the scoped key.
    const rootAll = (await hook(s.rootKey, apiHook())).body.id;
    const rootB = (await hook(s.rootKey, apiHook({ walletIds: [b] }))).body.id;
    const listed = await call(app.url, 'GET', '/v1/webhooks', { key: scoped.key });
    expect(listed.body.webhooks.map((w: { id: number }) => w.id)).toEqual([mine.body.id]);
    for (const id of [rootAll, rootB]) {
      expect((await call(app.url, 'PATCH', `/v1/webhooks/${id}`, { key: scoped.key, body: { enabled: false } })).status).toBe(404);
      expect((await call(app.url, 'GET', `/v1/webhooks/${id}/deliveries`, { key: scoped.key })).status).toBe(404);
      expect((await call(app.url, 'POST', `/v1/webhooks/${id}/rotate-secret`, { key: scoped.key, body: {} })).status).toBe(404);
      expect((await call(app.url, 'DELETE', `/v1/webhooks/${id}`, { key: scoped.key })).status).toBe(404);
    }
    // PATCH walletIds obeys rule 3 too.
    expect((await call(app.url, 'PATCH', `/v1/webhooks/${mine.body.id}`, { key: scoped.key, body: { walletIds: [b] } })).status).toBe(400);
    expect((await call(app.url, 'PATCH', `/v1/webhooks/${mine.body.id}`, { key: scoped.key, body: { walletIds: [] } })).status).toBe(403);
  });

  it('validates each kind and replaces config whole; chat secrets are masked', async () => {
    const s = await seedCompany(t.db);
    const token = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
    const tg = await hook(s.rootKey, { type: 'telegram', config: { botToken: token, chatId: -1001234 }, events: ['*'] });
    expect(tg.status).toBe(201);
    expect(tg.body.config).toEqual({ chatId: -1001234, botToken: '1234…Dsaw' });
    expect(tg.text).not.toContain(token);
    const partial = await call(app.url, 'PATCH', `/v1/webhooks/${tg.body.id}`, { key: s.rootKey, body: { config: { chatId: 42 } } });
    expect(partial.status).toBe(400);
    expect(partial.body.message).toMatch(/botToken/);
    const slackUrl = 'http://127.0.0.1:9/services/T000/B000/XXXXXXXXXXXXSECRET';
    const slack = await hook(s.rootKey, { type: 'slack', config: { url: slackUrl }, events: ['*'] });
    expect(slack.body.config.url).toBe('http://127.0.0.1:9/…CRET');
    expect((await hook(s.rootKey, { type: 'api', config: { url: 'http://127.0.0.1:9', extra: 1 }, events: ['*'] })).status).toBe(400);
    expect((await hook(s.rootKey, { type: 'email', config: {}, events: ['*'] })).status).toBe(400);
    expect((await hook(s.rootKey, apiHook({ events: ['deposit.maybe'] }))).status).toBe(400);
    expect((await hook(s.rootKey, apiHook({ events: [] }))).status).toBe(400);
  });

  it('refuses private, loopback, metadata and plain-http destinations without an allow-list', async () => {
    const s = await seedCompany(t.db);
    for (const url of [
      'https://10.1.2.3/hook',
      'https://127.0.0.1/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://100.100.100.200/',
      'https://[::1]/hook',
      'https://[::ffff:127.0.0.1]/hook',
      'https://[fd00:ec2::254]/',
      'https://[::7f00:1]/',
      'https://224.0.0.1/',
      'http://example.com/hook',
      'ftp://example.com/hook',
      'https://user:pw@example.com/hook',
      'not a url',
    ]) {
      const r = await hook(s.rootKey, { type: 'api', config: { url }, events: ['*'] }, strict.url);
      expect({ url, status: r.status }).toEqual({ url, status: 400 });
    }
    const ok = await hook(s.rootKey, { type: 'api', config: { url: 'https://hooks.example.com/walletd' }, events: ['*'] }, strict.url);
    expect(ok.status).toBe(201);
  });

  it('reads deliveries newest first, one in full, and validates the limit', async () => {
    const s = await seedCompany(t.db);
    const w = await wallet(s);
    const id = (await hook(s.rootKey, apiHook())).body.id;
    const events = [];
    for (let i = 0; i < 3; i++) events.push(await recordDeposit(t.db, s.companyId, w));
    const list = await call(app.url, 'GET', `/v1/webhooks/${id}/deliveries?limit=2`, { key: s.rootKey });
    expectSchema('DeliveryList', list.body);
    expect(list.body.deliveries.map((d: { eventId: string }) => d.eventId)).toEqual([events[2]?.envelope.id, events[1]?.envelope.id]);
    expect(list.body.deliveries[0]).toMatchObject({ status: 'pending', attempts: 0, responseCode: null, lastError: null });
    expect(list.body.deliveries[0]).not.toHaveProperty('payload');
    expect((await call(app.url, 'GET', `/v1/webhooks/${id}/deliveries`, { key: s.rootKey })).body.deliveries).toHaveLength(3);
    for (const bad of ['0', '101', 'x', '1.5']) {
      expect((await call(app.url, 'GET', `/v1/webhooks/${id}/deliveries?limit=${bad}`, { key: s.rootKey })).status).toBe(400);
    }
    const one = await call(app.url, 'GET', `/v1/webhooks/${id}/deliveries/${list.body.deliveries[0].id}`, { key: s.rootKey });
    expectSchema('DeliveryDetail', one.body);
    expect(one.body.delivery.payload).toEqual(events[2]?.envelope);
    expect(one.body.delivery.responseBody).toBeNull();
    expect((await call(app.url, 'GET', `/v1/webhooks/${id}/deliveries/999999`, { key: s.rootKey })).status).toBe(404);
  });

  it('queues nothing for a disabled webhook and filters by events and walletIds', async () => {
    const s = await seedCompany(t.db);
    const a = await wallet(s);
    const b = await wallet(s);
    const confirmedOnly = (await hook(s.rootKey, apiHook({ events: ['deposit.confirmed'] }))).body.id;
    const walletA = (await hook(s.rootKey, apiHook({ walletIds: [a] }))).body.id;
    const disabled = (await hook(s.rootKey, apiHook({ enabled: false }))).body.id;
    const later = await wallet(s); // "all wallets" includes wallets added later
    await recordDeposit(t.db, s.companyId, a, 'deposit.detected');
    await recordDeposit(t.db, s.companyId, b, 'deposit.confirmed');
    await recordDeposit(t.db, s.companyId, later, 'deposit.confirmed');
    const count = async (id: number) => Number((await t.db('webhook_deliveries').where({ webhook_id: id }).count('* as n'))[0]?.n);
    expect(await count(confirmedOnly)).toBe(2);
    expect(await count(walletA)).toBe(1);
    expect(await count(disabled)).toBe(0);
  });

  it('never skips an event whose transaction commits after a later one', async () => {
    const s = await seedCompany(t.db);
    const w = await wallet(s);
    const start = await call(app.url, 'GET', '/v1/events', { key: s.rootKey });
    // A long transaction records an event first but commits last.
    const slow = await t.db.transaction();
    let late: Awaited<ReturnType<typeof recordEventIn>>;
    let early: Awaited<ReturnType<typeof recordDeposit>>;
    let during: Awaited<ReturnType<typeof call>>;
    try {
      late = await recordEventIn(slow, s.companyId, w);
      early = await recordDeposit(t.db, s.companyId, w);
      during = await call(app.url, 'GET', `/v1/events?after=${start.body.next}`, { key: s.rootKey });
      expect(during.body).toMatchObject({ events: [] });
      await slow.commit();
    } finally {
      if (!slow.isCompleted()) await slow.rollback();
    }
    // The tests share one PostgreSQL cluster: another file's transaction still open holds the feed
    // back (as documented: a feed waits for every older transaction anywhere in the cluster), so
    // wait until both are served, then check they come in commit-safe order, once each.
    const after = await eventually(
      () => call(app.url, 'GET', `/v1/events?after=${during.body.next}`, { key: s.rootKey }),
      (r) => r.body.events.length >= 2,
    );
    expect(after.body.events.map((e: { id: string }) => e.id)).toEqual([late.envelope.id, early.envelope.id]);
  });

  it('redelivers one delivery and replays a window; the event feed pages in order', async () => {
    const s = await seedCompany(t.db);
    const w = await wallet(s);
    const id = (await hook(s.rootKey, apiHook())).body.id;
    const since = new Date().toISOString();
    const e1 = await recordDeposit(t.db, s.companyId, w);
    const e2 = await recordDeposit(t.db, s.companyId, w, 'deposit.detected');
    const first = (await call(app.url, 'GET', `/v1/webhooks/${id}/deliveries`, { key: s.rootKey })).body.deliveries[1];
    // Its delivery is still pending: redeliver returns that one rather than queueing a second.
    const again = await call(app.url, 'POST', `/v1/webhooks/${id}/deliveries/${first.id}/redeliver`, { key: s.rootKey });
    expect(again.status).toBe(200);
    expectSchema('Delivery', again.body.delivery);
    expect(again.body.delivery).toMatchObject({ id: first.id, eventId: e1.envelope.id, status: 'pending', attempts: 0 });
    await t.db('webhook_deliveries').where({ id: first.id }).update({ status: 'failed', next_attempt_at: null });
    const fresh = await call(app.url, 'POST', `/v1/webhooks/${id}/deliveries/${first.id}/redeliver`, { key: s.rootKey });
    expect(fresh.status).toBe(202);
    expectSchema('Delivery', fresh.body.delivery);
    expect(fresh.body.delivery).toMatchObject({ eventId: e1.envelope.id, status: 'pending', attempts: 0 });
    expect(fresh.body.delivery.id).not.toBe(first.id);
    // Events with a delivery still waiting are not queued twice.
    expect((await call(app.url, 'POST', `/v1/webhooks/${id}/replay`, { key: s.rootKey, body: { since } })).body.queued).toBe(0);
    await t.db('webhook_deliveries').where({ webhook_id: id }).update({ status: 'delivered' });
    const replayed = await call(app.url, 'POST', `/v1/webhooks/${id}/replay`, { key: s.rootKey, body: { since } });
    expectSchema('ReplayResponse', replayed.body);
    expect(replayed.body.queued).toBe(2);
    const onlyFailed = await call(app.url, 'POST', `/v1/webhooks/${id}/replay`, { key: s.rootKey, body: { since, status: 'failed' } });
    expect(onlyFailed.body.queued).toBe(0);
    expect((await call(app.url, 'POST', `/v1/webhooks/${id}/replay`, { key: s.rootKey, body: { since: 'yesterday' } })).status).toBe(400);

    // Other test files share the cluster: wait until both events are served (see above), then page.
    await eventually(
      () => call(app.url, 'GET', '/v1/events?limit=10', { key: s.rootKey }),
      (r) => r.body.events.length >= 2,
    );
    const page1 = await call(app.url, 'GET', '/v1/events?limit=1', { key: s.rootKey });
    expectSchema('EventFeed', page1.body);
    expect(page1.body.events.map((e: { id: string }) => e.id)).toEqual([e1.envelope.id]);
    expect(page1.body.hasMore).toBe(true);
    const page2 = await call(app.url, 'GET', `/v1/events?after=${page1.body.next}&limit=10`, { key: s.rootKey });
    expect(page2.body.events).toEqual([e2.envelope]);
    expect(page2.body.hasMore).toBe(false);
    const page3 = await call(app.url, 'GET', `/v1/events?after=${page2.body.next}`, { key: s.rootKey });
    expect(page3.body).toEqual({ events: [], next: page2.body.next, hasMore: false });
    expect((await call(app.url, 'GET', '/v1/events?after=12', { key: s.rootKey })).status).toBe(400);
    const outsider = await keyFor(t.db, s.companyId, { actions: ['events:read'], walletIds: [] });
    expect((await call(app.url, 'GET', '/v1/events', { key: outsider.key })).body.events).toEqual([]);
  });

  it('keeps one pending delivery per event and webhook however many redelivers race', async () => {
    const s = await seedCompany(t.db);
    const w = await wallet(s);
    const id = (await hook(s.rootKey, apiHook())).body.id;
    await recordDeposit(t.db, s.companyId, w);
    const [done] = await t
      .db('webhook_deliveries')
      .where({ webhook_id: id })
      .update({ status: 'delivered', next_attempt_at: null })
      .returning('id');
    const path = `/v1/webhooks/${id}/deliveries/${done.id}/redeliver`;
    const answers = await Promise.all(Array.from({ length: 12 }, () => call(app.url, 'POST', path, { key: s.rootKey })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 202]);
    const pending = await t.db('webhook_deliveries').where({ webhook_id: id, status: 'pending' }).select('id');
    expect(pending).toHaveLength(1);
    expect(new Set(answers.map((a) => a.body.delivery.id))).toEqual(new Set([pending[0].id]));
    // Replay skips it too, and the database refuses a second pending row whatever the code path.
    expect(
      (await call(app.url, 'POST', `/v1/webhooks/${id}/replay`, { key: s.rootKey, body: { since: '2000-01-01T00:00:00Z' } })).body.queued,
    ).toBe(0);
    const dup = await t.db('webhook_deliveries').where({ id: pending[0].id }).first('event_id', 'event_type');
    await expect(
      t.db('webhook_deliveries').insert({ webhook_id: id, event_id: dup.event_id, event_type: dup.event_type, status: 'pending' }),
    ).rejects.toThrow(/webhook_deliveries_one_pending/);
  });

  it('counts redeliver and replay against the per-key write limit', async () => {
    const limited = await startTestApp(t.db, { webhooks: { allowCidrs: ['127.0.0.0/8'] }, rateLimit: { writesPerKeyPerMinute: 2 } });
    try {
      const s = await seedCompany(t.db);
      const w = await wallet(s);
      const id = (await hook(s.rootKey, apiHook())).body.id;
      await recordDeposit(t.db, s.companyId, w);
      const [d] = await t.db('webhook_deliveries').where({ webhook_id: id }).select('id');
      const redeliver = () => call(limited.url, 'POST', `/v1/webhooks/${id}/deliveries/${d.id}/redeliver`, { key: s.rootKey });
      expect((await redeliver()).status).toBe(200);
      expect((await redeliver()).status).toBe(200);
      const refused = await redeliver();
      expect(refused.status).toBe(429);
      expect(refused.body.code).toBe('rate_limited');
      expect(refused.headers.get('retry-after')).toMatch(/^[0-9]+$/);
      const replay = () =>
        call(limited.url, 'POST', `/v1/webhooks/${id}/replay`, { key: s.rootKey, body: { since: '2000-01-01T00:00:00Z' } });
      expect((await replay()).status).toBe(202);
      expect((await replay()).status).toBe(202);
      expect((await replay()).status).toBe(429);
    } finally {
      await limited.close();
    }
  });
});
