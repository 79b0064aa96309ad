import { call, createTestDatabase, seedCompany, startTestApp, type TestApp, type TestDatabase } from '@walletd/test-harness';
import { validator } from '@walletd/schemas';

let t: TestDatabase;
let app: TestApp;
let key: string;

beforeAll(async () => {
  t = await createTestDatabase();
  app = await startTestApp(t.db, { webhooks: { allowCidrs: ['127.0.0.0/8'] } });
  key = (await seedCompany(t.db)).rootKey;
});
afterAll(async () => {
  await app.close();
  await t.drop();
});

describe('HTTP semantics', () => {
  it('a 401 names the Bearer scheme in WWW-Authenticate', async () => {
    for (const r of [
      await call(app.url, 'GET', '/v1/me'),
      await call(app.url, 'GET', '/v1/wallets', { key: 'svc_live_nope' }),
      await call(app.url, 'GET', '/v1/wallets', { headers: { authorization: 'Basic dXNlcjpwYXNz' } }),
    ]) {
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toBe('Bearer');
      expect(validator('ErrorBody')(r.body)).toBe(true);
    }
    expect((await call(app.url, 'GET', '/v1/me', { key })).headers.get('www-authenticate')).toBeNull();
  });

  it('responses that carry a secret are never stored by a cache', async () => {
    const created = await call(app.url, 'POST', '/v1/webhooks', {
      key,
      body: { type: 'api', config: { url: 'http://127.0.0.1:9/h' }, events: ['*'] },
    });
    expect(created.status).toBe(201);
    expect(created.body.signingSecret).toEqual(expect.any(String));
    expect(created.headers.get('cache-control')).toBe('no-store');
    const rotated = await call(app.url, 'POST', `/v1/webhooks/${created.body.id}/rotate-secret`, { key, body: {} });
    expect(rotated.headers.get('cache-control')).toBe('no-store');
    // Every API response: what one caller reads is that caller's data.
    expect((await call(app.url, 'GET', '/v1/me', { key })).headers.get('cache-control')).toBe('no-store');
  });

  it('a known path with a wrong method is a 405 with Allow, in the error shape', async () => {
    const cases: [string, string, string][] = [
      ['DELETE', '/v1/wallets', 'GET, HEAD, POST'],
      ['PUT', '/v1/webhooks/1', 'DELETE, GET, HEAD, PATCH'],
      ['GET', '/v1/webhooks/1/deliveries/2/redeliver', 'POST'],
      ['POST', '/v1/events', 'GET, HEAD'],
      ['POST', '/healthz', 'GET, HEAD'],
      ['DELETE', '/v1/openapi.json', 'GET, HEAD'],
    ];
    for (const [method, path, allow] of cases) {
      const r = await call(app.url, method, path, { key });
      expect({ method, path, status: r.status, allow: r.headers.get('allow') }).toEqual({ method, path, status: 405, allow });
      expect(r.body).toEqual({
        statusCode: 405,
        error: 'Method Not Allowed',
        message: `${method} is not allowed on ${path}; allowed: ${allow}`,
        code: 'method_not_allowed',
      });
    }
    const unknown = await call(app.url, 'PUT', '/v1/nothing-here', { key });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('allow')).toBeNull();
  });
});
