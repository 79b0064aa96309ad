import { call, createTestDatabase, seedCompany, startTestApp, type TestApp, type TestDatabase } from '@walletd/test-harness';

let t: TestDatabase;
let app: TestApp;

beforeAll(async () => {
  t = await createTestDatabase();
  app = await startTestApp(t.db, { rateLimit: { writesPerKeyPerMinute: 2 } });
});
afterAll(async () => {
  await app.close();
  await t.drop();
});

/** The budget's windows are the database clock's minutes: start with most of one left, so all hits fall in it. */
async function startOfAMinute(): Promise<void> {
  const { rows } = await t.db.raw('select extract(second from now())::float8 as s');
  const s = Number(rows[0].s);
  if (s > 50) await new Promise((r) => setTimeout(r, (61 - s) * 1000));
}

describe('value-moving write budget (issue 42 §5)', () => {
  it('is one budget per route whatever the case of the path as typed', async () => {
    const s = await seedCompany(t.db);
    await startOfAMinute();
    // The limit is counted before the body is validated: each of these spends the budget.
    expect((await call(app.url, 'POST', '/v1/wallets', { key: s.rootKey, body: {} })).status).toBe(400);
    expect((await call(app.url, 'POST', '/v1/Wallets', { key: s.rootKey, body: {} })).status).toBe(400);
    const upper = await call(app.url, 'POST', '/V1/wallets', { key: s.rootKey, body: {} });
    expect(upper.status).toBe(429);
    expect(upper.body.code).toBe('rate_limited');
    expect(upper.headers.get('retry-after')).toMatch(/^[0-9]+$/);
  });
});
