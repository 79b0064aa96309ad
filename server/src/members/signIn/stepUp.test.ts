import {
  Browser,
  type ConsoleServer,
  type TestDatabase,
  createTestDatabase,
  onboardMember,
  seedCompany,
  startConsole,
} from '@walletd/test-harness';

/**
 * A stolen session cookie is the one thing that could guess step-up codes: wrong codes are
 * audited, and five of them end the session and pause step-ups for the member.
 */
describe('console step-up throttle', () => {
  let t: TestDatabase;
  let con: ConsoleServer;

  beforeAll(async () => {
    t = await createTestDatabase();
    con = await startConsole(t.db);
  });
  afterAll(async () => {
    await con.close();
    await t.drop();
  });

  it('ends the session after five wrong codes, pauses step-ups for the member, and audits each', async () => {
    const s = await seedCompany(t.db);
    const m = await onboardMember(con, t.db, { companyId: s.companyId, email: 'guessed@acme.test', role: 'owner' });
    const guess = (b: Browser, code: string) => b.call('POST', '/console/api/step-up', { body: { code } });

    for (let i = 1; i <= 4; i++) {
      const r = await guess(m.b, String(100000 + i));
      expect([r.status, r.body.message]).toEqual([401, 'The authenticator code is incorrect or was already used']);
    }
    const fifth = await guess(m.b, '100005');
    expect([fifth.status, fifth.body.message]).toEqual([
      401,
      'Too many wrong authenticator codes: this session has ended; sign in again later',
    ]);
    expect((await m.b.call('GET', '/console/api/me')).status).toBe(401);

    const rows = await t
      .db('audit_log')
      .where({ company_id: s.companyId, actor_id: String(m.memberId) })
      .whereLike('action', 'member.step_up%')
      .pluck('action');
    expect(rows.sort()).toEqual([...Array(5).fill('member.step_up_failed'), 'member.step_up_locked'].sort());

    // Another session of the same member (signed in with password and code) cannot step up while
    // the pause lasts, even with the right code; afterwards it can.
    const other = new Browser(con.url);
    const signIn = await other.call('POST', '/console/api/session', { body: { email: m.email, password: m.password, code: m.code() } });
    expect(signIn.status).toBe(201);
    const paused = await guess(other, m.code());
    expect([paused.status, paused.body.code]).toEqual([429, 'rate_limited']);
    con.clock.now += 15 * 60_000;
    expect((await guess(other, m.code())).status).toBe(200);
  });
});
