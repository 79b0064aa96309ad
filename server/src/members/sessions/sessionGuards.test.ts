import {
  Browser,
  call,
  createTestDatabase,
  seedCompany,
  startConsole,
  startTestApp,
  type TestApp,
  type TestDatabase,
} from '@walletd/test-harness';
import { Secret, TOTP } from 'otpauth';
import { inviteMember } from '../links/inviteMember';
import { requireStepUp } from './sessions';

let t: TestDatabase;
let con: Awaited<ReturnType<typeof startConsole>>;
let api: TestApp;

beforeAll(async () => {
  t = await createTestDatabase();
  con = await startConsole(t.db);
  api = await startTestApp(t.db);
});
afterAll(async () => {
  await api.close();
  await con.close();
  await t.drop();
});

const codeAt = (secret: string, ms: number) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: ms });
const PASSWORD = 'correct horse battery staple';

/** A signed-in developer (no MFA required) in a fresh company. */
async function signedIn() {
  const s = await seedCompany(t.db);
  const email = `d-${Math.random().toString(36).slice(2)}@example.com`;
  const inv = await inviteMember(t.db, { companyId: s.companyId, email, role: 'developer' }, con.clock.now, 86_400_000);
  const b = new Browser(con.url);
  await b.call('POST', `/console/api/links/${inv.token}`, { body: { password: PASSWORD } });
  const res = await b.call('POST', '/console/api/session', { body: { email, password: PASSWORD } });
  expect(res.status).toBe(201);
  return { b, rootKey: s.rootKey, email };
}

describe('console sessions', () => {
  it('refuses a state change without the CSRF token, with a wrong one, or from another origin', async () => {
    const { b } = await signedIn();
    const missing = await b.call('POST', '/console/api/mfa/enroll', { csrf: false });
    expect(missing.status).toBe(403);
    expect(missing.body.code).toBe('csrf_failed');
    const wrong = await b.call('POST', '/console/api/mfa/enroll', { headers: { 'x-csrf-token': 'x'.repeat(43) } });
    expect(wrong.body.code).toBe('csrf_failed');
    const foreign = await b.call('POST', '/console/api/mfa/enroll', { headers: { origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
    expect(foreign.body.code).toBe('csrf_failed');
    // Sign-in itself refuses a foreign origin (login CSRF).
    const login = await new Browser(con.url).call('POST', '/console/api/session', {
      body: { email: 'a@b.c', password: PASSWORD },
      headers: { origin: 'https://evil.example' },
    });
    expect(login.body.code).toBe('csrf_failed');
    // Same origin with the token: accepted.
    expect((await b.call('POST', '/console/api/mfa/enroll', { headers: { origin: con.url } })).status).toBe(200);
  });

  it('ends a session after the idle timeout, and after the absolute timeout however active', async () => {
    const idle = await signedIn();
    con.clock.now += 29 * 60_000;
    expect((await idle.b.call('GET', '/console/api/me')).status).toBe(200);
    con.clock.now += 29 * 60_000; // 58 min after sign-in, 29 after the last use
    expect((await idle.b.call('GET', '/console/api/me')).status).toBe(200);
    con.clock.now += 30 * 60_000;
    const ended = await idle.b.call('GET', '/console/api/me');
    expect(ended.status).toBe(401);
    expect(ended.body.code).toBe('unauthorized');

    const busy = await signedIn();
    for (let h = 0; h < 12 * 4 - 1; h++) {
      con.clock.now += 15 * 60_000;
      expect((await busy.b.call('GET', '/console/api/me')).status).toBe(200);
    }
    con.clock.now += 15 * 60_000; // 12 h after sign-in
    expect((await busy.b.call('GET', '/console/api/me')).status).toBe(401);
  });

  it('refuses API keys on /console/api (403) and session cookies on /v1 (401)', async () => {
    const { b, rootKey } = await signedIn();
    const withKey = await b.call('GET', '/console/api/me', { headers: { authorization: `Bearer ${rootKey}` } });
    expect(withKey.status).toBe(403);
    expect(withKey.body.code).toBe('dashboard_only');
    const keyOnly = await call(con.url, 'POST', '/console/api/mfa/enroll', { key: rootKey });
    expect(keyOnly.status).toBe(403);
    const cookie = [...b.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const v1 = await call(api.url, 'GET', '/v1/me', { headers: { cookie } });
    expect(v1.status).toBe(401);
    expect(v1.body.code).toBe('unauthorized');
  });

  it('step-up: a fresh TOTP code inside the session, valid for stepUpMs', async () => {
    const { b } = await signedIn();
    const enroll = await b.call('POST', '/console/api/mfa/enroll');
    const secret = enroll.body.secret as string;
    await b.call('POST', '/console/api/mfa/verify', { body: { code: codeAt(secret, con.clock.now) } });
    con.clock.now += 30_000;
    con.clock.now += 6 * 60_000;
    const stale = (await b.call('GET', '/console/api/me')).body.steppedUpAt as string;
    const session = { steppedUpAt: new Date(stale) } as Parameters<typeof requireStepUp>[0];
    expect(() => requireStepUp(session, con.clock.now, 300_000)).toThrow(expect.objectContaining({ code: 'step_up_required' }));
    expect((await b.call('POST', '/console/api/step-up', { body: { code: '000000' } })).status).toBe(401);
    const code = codeAt(secret, con.clock.now);
    const up = await b.call('POST', '/console/api/step-up', { body: { code } });
    expect(up.status).toBe(200);
    const fresh = (await b.call('GET', '/console/api/me')).body.steppedUpAt as string;
    expect(() => requireStepUp({ steppedUpAt: new Date(fresh) } as typeof session, con.clock.now, 300_000)).not.toThrow();
    // The same code cannot step up twice.
    expect((await b.call('POST', '/console/api/step-up', { body: { code } })).status).toBe(401);
  });
});
