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
import { findSpoofingText } from './displayText';

let t: TestDatabase;
let app: TestApp;
let con: ConsoleServer;

beforeAll(async () => {
  t = await createTestDatabase();
  app = await startTestApp(t.db);
  con = await startConsole(t.db);
});
afterAll(async () => {
  await con.close();
  await app.close();
  await t.drop();
});

const SPOOFS = ['pay\u202Eslip', 'pay\u2066roll\u2069', 'a\u202Ab', 'bell\u0007', 'new\nline', 'esc\u001B[31m', 'c1\u0085'];

describe('names, labels and notes display as typed (issue 42 §5)', () => {
  it('a note or description keeps its line breaks and tabs, and is refused on an override, at any depth', () => {
    expect(findSpoofingText({ note: 'line one\nline two\twith a tab' })).toBeNull();
    expect(findSpoofingText({ items: [{ note: 'ok' }, { description: 'x\u202Ey' }] })).toBe('body.items[1].description');
    expect(findSpoofingText({ name: 'line one\nline two' })).toBe('body.name');
    expect(findSpoofingText({ config: { url: 'https://example.com/\u202E' } })).toBeNull(); // not a display field
  });

  it('the API refuses bidi overrides and control characters in a wallet name and an address label, naming the field', async () => {
    const s = await seedCompany(t.db);
    for (const name of SPOOFS) {
      const r = await call(app.url, 'POST', '/v1/wallets', { key: s.rootKey, body: { name, chain: 'ethereum', network: 'devnet' } });
      expect([JSON.stringify(name), r.status, r.body.code]).toEqual([JSON.stringify(name), 400, 'validation_failed']);
      expect(r.body.message).toMatch(/^body\.name contains a control character or a bidirectional override/);
    }
    const ok = await call(app.url, 'POST', '/v1/wallets', {
      key: s.rootKey,
      body: { name: 'Trésor 💰 مال', chain: 'ethereum', network: 'devnet' },
    });
    expect(ok.status).toBe(201);
    const label = await call(app.url, 'POST', `/v1/wallets/${ok.body.id}/addresses`, { key: s.rootKey, body: { label: 'cold\u202Edlo' } });
    expect([label.status, label.body.code]).toEqual([400, 'validation_failed']);
    expect(label.body.message).toMatch(/^body\.label /);
    expect(Number((await t.db('wallets').where({ company_id: s.companyId }).count({ n: '*' }))[0]?.n)).toBe(1);
  });

  it('the console refuses them in an API key name and a policy name', async () => {
    const s = await seedCompany(t.db);
    const owner = await onboardMember(con, t.db, { companyId: s.companyId, email: 'owner-bidi@example.com', role: 'owner' });
    const key = await owner.b.call('POST', '/console/api/keys', {
      body: { name: 'ci\u2067 bot', actions: ['wallets:read'], walletIds: '*' },
    });
    expect([key.status, key.body.code]).toEqual([400, 'validation_failed']);
    expect(key.body.message).toMatch(/^body\.name /);
    const policy = await owner.b.call('POST', '/console/api/policies', { body: { name: 'limit\u202E', kind: 'require_approval' } });
    expect([policy.status, policy.body.code]).toEqual([400, 'validation_failed']);
    expect(policy.body.message).toMatch(/^body\.name /);
  });
});
