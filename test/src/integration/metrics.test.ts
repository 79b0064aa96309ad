import { randomUUID } from 'node:crypto';
import { createWallet } from '@walletd/server';
import {
  call,
  createTestDatabase,
  seedCompany,
  startTestApp,
  type TestApp,
  type TestDatabase,
  shippedPlugins,
} from '@walletd/test-harness';

/** Scrapes the real app's /metrics after real requests and rows in the real tables. */
describe('GET /metrics', () => {
  let t: TestDatabase;
  let app: TestApp;
  let key: string;
  let companyId: number;

  beforeAll(async () => {
    t = await createTestDatabase();
    app = await startTestApp(t.db);
    ({ rootKey: key, companyId } = await seedCompany(t.db));
  });
  afterAll(async () => {
    await app.close();
    await t.drop();
  });

  const scrape = async () => {
    const r = await call(app.url, 'GET', '/metrics');
    expect(r.status).toBe(200);
    return r.text;
  };
  /** The sample of one series, by its exact label set (prom-client writes labels in declaration order). */
  const sample = (text: string, series: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  };

  it('counts and times requests by route template and status, never by raw path', async () => {
    expect((await call(app.url, 'GET', '/v1/wallets/987654', { key })).status).toBe(404);
    expect((await call(app.url, 'GET', '/v1/wallets/123456', { key })).status).toBe(404);
    expect((await call(app.url, 'GET', '/v1/me', { key })).status).toBe(200);
    expect((await call(app.url, 'GET', '/v1/me')).status).toBe(401);
    expect((await call(app.url, 'GET', '/no/such/path/42')).status).toBe(404);

    const text = await scrape();
    expect(sample(text, 'walletd_http_requests_total{method="GET",route="/v1/wallets/:id",status="404"}')).toBe(2);
    expect(sample(text, 'walletd_http_requests_total{method="GET",route="/v1/me",status="200"}')).toBe(1);
    // Refused before any route matched (authentication runs first): no template, so `unmatched`.
    expect(sample(text, 'walletd_http_requests_total{method="GET",route="unmatched",status="401"}')).toBe(1);
    expect(sample(text, 'walletd_http_requests_total{method="GET",route="unmatched",status="404"}')).toBe(1);
    expect(sample(text, 'walletd_http_request_duration_seconds_count{method="GET",route="/v1/wallets/:id",status="404"}')).toBe(2);
    expect(text).not.toMatch(/987654|123456|no\/such/);
  });

  it('reports the delivery backlog and the age of the oldest due delivery', async () => {
    const [webhook] = await t
      .db('webhooks')
      .insert({ company_id: companyId, type: 'http', config: {}, events: ['deposit.detected'], secret_envelope: {} })
      .returning('id');
    // One event per delivery: the database holds at most one pending delivery per event and webhook.
    const eventIds = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    await t
      .db('events')
      .insert(
        eventIds.map((id) => ({ id, company_id: companyId, type: 'deposit.detected', chain: 'ethereum', network: 'devnet', body: '{}' })),
      );
    let n = 0;
    const delivery = (next: string, status = 'pending') => ({
      webhook_id: webhook.id,
      event_id: eventIds[n++],
      event_type: 'deposit.detected',
      status,
      next_attempt_at: t.db.raw(next),
    });
    await t
      .db('webhook_deliveries')
      .insert([
        delivery(`now() - interval '90 seconds'`),
        delivery(`now() - interval '10 seconds'`),
        delivery(`now() + interval '1 hour'`),
        delivery('now()', 'delivered'),
      ]);

    const text = await scrape();
    expect(sample(text, 'walletd_webhook_deliveries_pending')).toBe(3);
    const age = sample(text, 'walletd_webhook_oldest_due_delivery_age_seconds');
    expect(age).toBeGreaterThanOrEqual(90);
    expect(age).toBeLessThan(3600);
  });

  it('leaves deliveries of a disabled webhook out of the oldest due age: they will not be sent (issue 29)', async () => {
    const [off] = await t
      .db('webhooks')
      .insert({ company_id: companyId, type: 'http', config: {}, events: ['deposit.detected'], secret_envelope: {}, enabled: false })
      .returning('id');
    const id = randomUUID();
    await t.db('events').insert({ id, company_id: companyId, type: 'deposit.detected', chain: 'ethereum', network: 'devnet', body: '{}' });
    await t.db('webhook_deliveries').insert({
      webhook_id: off.id,
      event_id: id,
      event_type: 'deposit.detected',
      status: 'pending',
      next_attempt_at: t.db.raw(`now() - interval '1 day'`),
    });

    const text = await scrape();
    // The enabled webhook's oldest (90 s, above) still counts; the disabled one's day does not.
    const age = sample(text, 'walletd_webhook_oldest_due_delivery_age_seconds');
    expect(age).toBeGreaterThanOrEqual(90);
    expect(age).toBeLessThan(3600);
    expect(sample(text, 'walletd_webhooks_backed_off')).toBe(0);
  });

  it('reports withdrawals by status, zero for a status with none', async () => {
    const wallet = await createWallet(
      t.db,
      app.masterKey,
      { companyId, name: 'hot', chain: 'ethereum', network: 'devnet' },
      shippedPlugins(),
    );
    const withdrawal = (status: string) => ({
      company_id: companyId,
      wallet_id: wallet.id,
      intent_hash: randomUUID(),
      chain: 'ethereum',
      network: 'devnet',
      asset_key: 'ETH',
      amount: '1',
      status,
    });
    await t.db('withdrawals').insert([withdrawal('prepared'), withdrawal('prepared'), withdrawal('confirmed')]);

    const text = await scrape();
    expect(sample(text, 'walletd_withdrawals{status="prepared"}')).toBe(2);
    expect(sample(text, 'walletd_withdrawals{status="confirmed"}')).toBe(1);
    expect(sample(text, 'walletd_withdrawals{status="rejected"}')).toBe(0);
  });
});
