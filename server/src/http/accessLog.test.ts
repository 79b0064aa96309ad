import { call, createTestDatabase, seedCompany, startTestApp, type TestApp, type TestDatabase } from '@walletd/test-harness';

let t: TestDatabase;
let app: TestApp;

beforeAll(async () => {
  t = await createTestDatabase();
  app = await startTestApp(t.db);
});
afterAll(async () => {
  await app.close();
  await t.drop();
});

type Line = { level: number; msg: string; reqId?: string; req?: { method: string; url: string; ip: string }; res?: { statusCode: number } };
const accessLines = (reqId: string): Line[] =>
  app.logs
    .flatMap((chunk) => chunk.split('\n').filter(Boolean))
    .map((l) => JSON.parse(l) as Line)
    .filter((l) => l.reqId === reqId && l.msg.startsWith('request '));

describe('access log', () => {
  it('writes one line per request with the id, method, path without query, address and status; never the key', async () => {
    const s = await seedCompany(t.db);
    const r = await call(app.url, 'GET', '/v1/me?token=look-not-here', { key: s.rootKey, headers: { 'x-request-id': 'order-7.retry_2' } });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-request-id')).toBe('order-7.retry_2');
    // The line is written when the response is done, which can be just after the client has it.
    for (let i = 0; i < 50 && accessLines('order-7.retry_2').length === 0; i++) await new Promise((res) => setTimeout(res, 10));
    const lines = accessLines('order-7.retry_2');
    expect(lines).toEqual([
      expect.objectContaining({
        level: 30,
        msg: 'request completed',
        req: { method: 'GET', url: '/v1/me', ip: '127.0.0.1' },
        res: { statusCode: 200 },
      }),
    ]);
    const text = JSON.stringify(lines);
    expect(text).not.toContain(s.rootKey);
    expect(text).not.toContain('look-not-here');
    expect(text).not.toMatch(/authorization/i);
  });

  it('replaces a request id that is not a short token with a new UUID', async () => {
    for (const bad of ['has space', 'x'.repeat(65), 'semi;colon']) {
      const r = await call(app.url, 'GET', '/healthz', { headers: { 'x-request-id': bad } });
      expect(r.headers.get('x-request-id')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
  });

  it('logs a refused request with its status', async () => {
    const r = await call(app.url, 'GET', '/v1/wallets', { headers: { 'x-request-id': 'no-key-1' } });
    expect(r.status).toBe(401);
    for (let i = 0; i < 50 && accessLines('no-key-1').length === 0; i++) await new Promise((res) => setTimeout(res, 10));
    expect(accessLines('no-key-1')).toEqual([expect.objectContaining({ level: 30, res: { statusCode: 401 } })]);
  });
  it("logs a probe's 503 (not ready yet) at info, not as an error", async () => {
    const chains = [{ chain: 'ethereum', network: 'devnet', rpcUrl: 'http://127.0.0.1:9' }];
    const starting = await startTestApp(t.db, { chains });
    try {
      const r = await call(starting.url, 'GET', '/readyz', { headers: { 'x-request-id': 'probe-1' } });
      expect(r.status).toBe(503);
      const lines = () =>
        starting.logs
          .flatMap((chunk) => chunk.split('\n').filter(Boolean))
          .map((l) => JSON.parse(l) as Line)
          .filter((l) => l.reqId === 'probe-1');
      for (let i = 0; i < 50 && lines().length === 0; i++) await new Promise((res) => setTimeout(res, 10));
      expect(lines()).toEqual([expect.objectContaining({ level: 30, res: { statusCode: 503 } })]);
    } finally {
      await starting.close();
    }
  });
});
