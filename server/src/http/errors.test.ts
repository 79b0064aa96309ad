import { call, createTestDatabase, seedCompany, startTestApp, type TestApp, type TestDatabase } from '@walletd/test-harness';
import { validator } from '@walletd/schemas';

let t: TestDatabase;
let app: TestApp;
let key: string;

beforeAll(async () => {
  t = await createTestDatabase();
  app = await startTestApp(t.db, { server: { bodyLimitBytes: 2048 } });
  key = (await seedCompany(t.db)).rootKey;
});
afterAll(async () => {
  await app.close();
  await t.drop();
});

const isErrorBody = (body: unknown) => validator('ErrorBody')(body);

describe('error bodies', () => {
  it('malformed JSON -> 400', async () => {
    const r = await call(app.url, 'POST', '/v1/wallets', { key, rawBody: '{"name":', headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(isErrorBody(r.body)).toBe(true);
    expect(r.body).toEqual({ statusCode: 400, error: 'Bad Request', message: 'Request body is not valid JSON', code: 'malformed_json' });
  });

  it('a write the database refuses for a full disk (53100) -> 503 with Retry-After, no path or SQL', async () => {
    await t.db.raw(`
      create function walletd_test_disk_full() returns trigger language plpgsql as $$
      begin
        raise exception using errcode = 'disk_full', message = 'could not extend file "base/16384/16400": No space left on device';
      end $$;
      create trigger walletd_test_disk_full before insert on wallets for each row execute function walletd_test_disk_full();
    `);
    try {
      const r = await call(app.url, 'POST', '/v1/wallets', { key, body: { name: 'full', chain: 'ethereum', network: 'sepolia' } });
      expect(r.status).toBe(503);
      expect(r.headers.get('retry-after')).toBe('5');
      expect(r.body).toEqual({
        statusCode: 503,
        error: 'Service Unavailable',
        message: "The database's disk is full; retry later",
        code: 'unavailable',
      });
    } finally {
      await t.db.raw('drop trigger walletd_test_disk_full on wallets; drop function walletd_test_disk_full()');
    }
  });

  it('unknown route -> 404', async () => {
    const r = await call(app.url, 'GET', '/v1/nope', { key });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ statusCode: 404, error: 'Not Found', message: 'No route GET /v1/nope', code: 'not_found' });
    const outside = await call(app.url, 'GET', '/elsewhere');
    expect(outside.status).toBe(404);
    expect(isErrorBody(outside.body)).toBe(true);
  });

  it('oversized body -> 413', async () => {
    const r = await call(app.url, 'POST', '/v1/wallets', { key, body: { name: 'x'.repeat(5000), chain: 'ethereum', network: 'sepolia' } });
    expect(r.status).toBe(413);
    expect(r.body).toEqual({
      statusCode: 413,
      error: 'Payload Too Large',
      message: 'Request body exceeds the limit of 2048 bytes',
      code: 'payload_too_large',
    });
  });

  it('wrong content type -> 415, non-object JSON -> 400', async () => {
    const r = await call(app.url, 'POST', '/v1/wallets', {
      key,
      rawBody: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(r.status).toBe(415);
    expect(isErrorBody(r.body)).toBe(true);
    const arr = await call(app.url, 'POST', '/v1/wallets', { key, body: [1, 2] });
    expect(arr.status).toBe(400);
    expect(arr.body.message).toBe('Request body must be a JSON object');
  });

  it('every response carries the rate-limit headers, errors included', async () => {
    for (const r of [
      await call(app.url, 'GET', '/v1/me', { key }),
      await call(app.url, 'GET', '/v1/me'),
      await call(app.url, 'GET', '/v1/nope', { key }),
    ]) {
      expect(r.headers.get('ratelimit-limit')).toBe('300');
      expect(Number(r.headers.get('ratelimit-remaining'))).toBeLessThan(300);
      expect(Number(r.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    }
  });

  it('answers 400, not 500, for broken percent-encoding in a path', async () => {
    const r = await call(app.url, 'GET', '/v1/webhooks/%E0%A4%A', { key });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: 'Malformed percent-encoding in the request path',
      code: 'bad_request',
    });
  });

  it('keeps health probes outside the rate limiter', async () => {
    const r = await call(app.url, 'GET', '/healthz');
    expect(r.body).toEqual({ status: 'ok' });
    expect(r.headers.get('ratelimit-limit')).toBeNull();
  });

  it('serves Prometheus metrics outside the rate limiter', async () => {
    const r = await call(app.url, 'GET', '/metrics');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(r.text).toContain('# TYPE walletd_webhook_attempts_total counter');
    expect(r.text).toContain('walletd_process_cpu_user_seconds_total');
    expect(r.headers.get('ratelimit-limit')).toBeNull();
  });

  it('serves the OpenAPI document', async () => {
    const r = await call(app.url, 'GET', '/v1/openapi.json');
    expect(r.body.openapi).toBe('3.1.0');
    expect(Object.keys(r.body.paths)).toEqual(expect.arrayContaining(['/me', '/wallets', '/wallets/{id}/secret']));
  });
});
