import { type Server, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { MasterKey, createLogger, createMetrics } from '@walletd/core';
import { type TestDatabase, createTestDatabase, seedCompany, testConfig } from '@walletd/test-harness';
import { createApp, loadPlugins } from '@walletd/server';

// The API's JSON answers skip Express's general `res.send` path (content type parsed and formatted
// again, ETag function, Buffer copy, freshness; bench/README.md, `api`) and must still be the bytes
// and headers Express would write.

let t: TestDatabase;
let key: string;
let server: Server;
let url: string;
let sends = 0;
const stops: (() => void)[] = [];

beforeAll(async () => {
  t = await createTestDatabase();
  key = (await seedCompany(t.db, 'paid', 'Acmé ☃ 株式会社')).rootKey;
  const { app, limiters } = createApp({
    config: testConfig(),
    logger: createLogger({ level: 'warn' }),
    db: t.db,
    masterKey: new MasterKey(randomBytes(32)),
    plugins: loadPlugins(),
    metrics: createMetrics(),
  });
  for (const s of limiters.stores) stops.push(() => s.shutdown());
  const send = app.response.send;
  app.response.send = function counted(this: typeof app.response, ...args: Parameters<typeof send>) {
    sends++;
    return send.apply(this, args);
  };
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  for (const stop of stops) stop();
  await t.drop();
});

const me = (method = 'GET', headers: Record<string, string> = {}) =>
  fetch(`${url}/v1/me`, { method, headers: { authorization: `Bearer ${key}`, ...headers } });

test('GET /v1/me: the JSON body with its type and byte length, written without res.send', async () => {
  sends = 0;
  const r = await me();
  const text = await r.text();
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(r.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
  expect(JSON.parse(text).company.name).toBe('Acmé ☃ 株式会社');
  expect(r.headers.get('cache-control')).toBe('no-store');
  expect(r.headers.get('etag')).toBeNull();
  expect(sends).toBe(0);
});

test('HEAD /v1/me: the same headers, no body', async () => {
  const get = await me();
  const getLength = get.headers.get('content-length');
  await get.text();
  const r = await me('HEAD');
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(r.headers.get('content-length')).toBe(getLength);
  expect(await r.text()).toBe('');
});

test('errors and conditional requests still answer as Express does', async () => {
  const unauthorized = await fetch(`${url}/v1/me`, { headers: { authorization: 'Bearer nope' } });
  const text = await unauthorized.text();
  expect(unauthorized.status).toBe(401);
  expect(unauthorized.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(unauthorized.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
  expect(JSON.parse(text)).toMatchObject({ statusCode: 401, code: 'unauthorized' });

  // Express's own path (a conditional request): `If-None-Match: *` is fresh to it, a 304 without a
  // body. Through node:http: fetch adds `Cache-Control: no-cache` to conditional requests.
  sends = 0;
  const conditional = await new Promise<{ status?: number; body: string }>((resolve, reject) => {
    const req = request(`${url}/v1/me`, { headers: { authorization: `Bearer ${key}`, 'if-none-match': '*' } }, (res) => {
      let body = '';
      res.on('data', (c) => {
        body += c;
      });
      res.on('end', () => resolve({ status: res.statusCode, body }));
    });
    req.on('error', reject);
    req.end();
  });
  expect(conditional).toEqual({ status: 304, body: '' });
  expect(sends).toBe(1);
});
