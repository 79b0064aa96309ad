import {
  Browser,
  type ConsoleServer,
  type TestApp,
  type TestDatabase,
  call,
  createTestDatabase,
  seedCompany,
  startConsole,
  startTestApp,
} from '@walletd/test-harness';
import { inviteMember } from '../members/links/inviteMember';

let t: TestDatabase;
let app: TestApp;
let con: ConsoleServer;
let plain: ConsoleServer;

beforeAll(async () => {
  t = await createTestDatabase();
  app = await startTestApp(t.db, { server: { trustProxy: true } });
  con = await startConsole(t.db, { server: { trustProxy: true } });
  plain = await startConsole(t.db);
});
afterAll(async () => {
  await plain.close();
  await con.close();
  await app.close();
  await t.drop();
});

const https = { 'x-forwarded-proto': 'https' };

describe('served over TLS (issue 42 §5)', () => {
  it('the API and the console send HSTS when a trusted proxy says https, nosniff always, and no HSTS over plain HTTP', async () => {
    const s = await seedCompany(t.db);
    const overTls = await call(app.url, 'GET', '/v1/wallets', { key: s.rootKey, headers: https });
    expect(overTls.status).toBe(200);
    expect(overTls.headers.get('strict-transport-security')).toBe('max-age=31536000');
    expect(overTls.headers.get('x-content-type-options')).toBe('nosniff');
    const overHttp = await call(app.url, 'GET', '/v1/wallets', { key: s.rootKey });
    expect(overHttp.headers.get('strict-transport-security')).toBeNull();
    expect(overHttp.headers.get('x-content-type-options')).toBe('nosniff');

    const page = await fetch(`${con.url}/console/`, { headers: https });
    expect(page.headers.get('strict-transport-security')).toBe('max-age=31536000');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect((await fetch(`${con.url}/console/`)).headers.get('strict-transport-security')).toBeNull();
    // Without trustProxy a client's own X-Forwarded-Proto proves nothing.
    const spoofed = await fetch(`${plain.url}/console/`, { headers: https });
    expect(spoofed.headers.get('strict-transport-security')).toBeNull();
    expect(spoofed.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

describe('password strength (issue 42 §5)', () => {
  it('refuses long but guessable passwords with a reason and keeps the link usable; a strong one is accepted', async () => {
    const s = await seedCompany(t.db);
    const inv = await inviteMember(
      t.db,
      { companyId: s.companyId, email: 'weak@example.com', role: 'developer' },
      plain.clock.now,
      86_400_000,
    );
    const b = new Browser(plain.url);
    for (const password of ['password1234', 'Password123!', 'qwertyuiop12', 'aaaaaaaaaaaaaaaa', 'iloveyou12345']) {
      const r = await b.call('POST', `/console/api/links/${inv.token}`, { body: { password } });
      expect([password, r.status, r.body.code, r.body.reason]).toEqual([password, 400, 'validation_failed', 'password_too_guessable']);
      expect(r.body.message).toMatch(/^The password is too easy to guess/);
    }
    expect((await b.call('POST', `/console/api/links/${inv.token}`, { body: { password: 'correct horse battery staple' } })).status).toBe(
      200,
    );
  });
});
