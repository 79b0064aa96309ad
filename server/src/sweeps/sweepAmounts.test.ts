import {
  type ConsoleServer,
  type TestApp,
  type TestDatabase,
  call,
  createTestDatabase,
  onboardMember,
  seedCompany,
  startConsole,
  startTestApp,
} from '@walletd/test-harness';

let t: TestDatabase;
let con: ConsoleServer;
let app: TestApp;

beforeAll(async () => {
  t = await createTestDatabase();
  con = await startConsole(t.db);
  app = await startTestApp(t.db);
});
afterAll(async () => {
  await app.close();
  await con.close();
  await t.drop();
});

describe('console sweep rules (issue 42 §5)', () => {
  it('refuse amounts beyond 2^256 - 1 base units with 400 invalid_amount, not 500', async () => {
    const s = await seedCompany(t.db);
    const api = (method: string, path: string, body?: unknown) => call(app.url, method, `/v1${path}`, { key: s.rootKey, body });
    const walletId = (await api('POST', '/wallets', { name: 'hot', chain: 'ethereum', network: 'devnet' })).body.id as number;
    const treasury = (await api('POST', `/wallets/${walletId}/addresses`)).body.address as string;
    const owner = await onboardMember(con, t.db, { companyId: s.companyId, email: 'owner-sweeps@example.com', role: 'owner' });
    const base = { asset: 'ETH', destination: treasury, threshold: '0.5', trigger: 'schedule', intervalSeconds: 3600 };
    for (const body of [
      { ...base, threshold: String(2n ** 256n) },
      { ...base, minLeft: '9'.repeat(100) },
    ]) {
      const r = await owner.b.call('POST', `/console/api/wallets/${walletId}/sweep-rules`, { body });
      expect([r.status, r.body.code]).toEqual([400, 'invalid_amount']);
    }
    expect((await owner.b.call('POST', `/console/api/wallets/${walletId}/sweep-rules`, { body: base })).status).toBe(201);
  });
});
