import { Browser, createTestDatabase, seedCompany, startConsole, type TestDatabase } from '@walletd/test-harness';
import { Secret, TOTP } from 'otpauth';
import { inviteMember } from '../links/inviteMember';

let t: TestDatabase;
let con: Awaited<ReturnType<typeof startConsole>>;

beforeAll(async () => {
  t = await createTestDatabase();
  con = await startConsole(t.db, { console: { lockoutFailures: 3 } });
});
afterAll(async () => {
  await con.close();
  await t.drop();
});

const codeAt = (secret: string, ms: number) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: ms });
const PASSWORD = 'correct horse battery staple';

/** Invites, sets the password through the link, signs in, enrolls TOTP: a member ready to work. */
async function enrolledMember(role = 'owner', email = `m-${Math.random().toString(36).slice(2)}@example.com`) {
  const s = await seedCompany(t.db);
  const inv = await inviteMember(t.db, { companyId: s.companyId, email, role }, con.clock.now, 86_400_000);
  const b = new Browser(con.url);
  expect((await b.call('POST', `/console/api/links/${inv.token}`, { body: { password: PASSWORD } })).status).toBe(200);
  const first = await b.call('POST', '/console/api/session', { body: { email, password: PASSWORD } });
  expect(first.status).toBe(201);
  expect(first.body.mfaEnrollmentRequired).toBe(role === 'owner' || role === 'admin');
  const enroll = await b.call('POST', '/console/api/mfa/enroll');
  expect(enroll.status).toBe(200);
  expect(enroll.body.otpauthUri).toMatch(/^otpauth:\/\/totp\/walletd:.*secret=/);
  const secret = enroll.body.secret as string;
  const verified = await b.call('POST', '/console/api/mfa/verify', { body: { code: codeAt(secret, con.clock.now) } });
  expect(verified.status).toBe(200);
  expect(verified.body.recoveryCodes).toHaveLength(10);
  con.clock.now += 30_000; // the enrollment code's step is spent
  return {
    email,
    secret,
    memberId: inv.memberId,
    companyId: s.companyId,
    rootKey: s.rootKey,
    recovery: verified.body.recoveryCodes as string[],
    inv,
  };
}

describe('console sign-in', () => {
  it('invite → set password → enroll TOTP → sign in with a code; cookies are httpOnly, SameSite=Strict', async () => {
    const m = await enrolledMember();
    const b = new Browser(con.url);
    const noCode = await b.call('POST', '/console/api/session', { body: { email: m.email, password: PASSWORD } });
    expect(noCode.status).toBe(401);
    expect(noCode.body.code).toBe('mfa_required');
    const ok = await b.call('POST', '/console/api/session', {
      body: { email: m.email, password: PASSWORD, code: codeAt(m.secret, con.clock.now) },
    });
    expect(ok.status).toBe(201);
    const session = ok.setCookie.find((c) => c.startsWith('walletd_session='));
    expect(session).toMatch(/HttpOnly/);
    expect(session).toMatch(/SameSite=Strict/);
    expect(session).not.toMatch(/Secure/); // plain HTTP and console.secureCookies off
    const me = await b.call('GET', '/console/api/me');
    expect(me.body).toMatchObject({
      memberId: m.memberId,
      companyId: m.companyId,
      role: 'owner',
      mfaEnrolled: true,
      mfaEnrollmentRequired: false,
    });
    expect(me.body.steppedUpAt).not.toBeNull();
    // The database keeps only a hash of the token.
    const token = b.cookies.get('walletd_session') as string;
    expect(await t.db('member_sessions').where({ token_hash: token }).first()).toBeUndefined();
    // The link was one-time.
    expect((await new Browser(con.url).call('POST', `/console/api/links/${m.inv.token}`, { body: { password: PASSWORD } })).status).toBe(
      404,
    );
    // Sign out ends the session server-side.
    expect((await b.call('DELETE', '/console/api/session')).status).toBe(204);
    b.cookies.set('walletd_session', token);
    expect((await b.call('GET', '/console/api/me')).status).toBe(401);
  });

  it('answers a wrong password and an unknown email the same way, and locks the pair out after N failures either way', async () => {
    const m = await enrolledMember('developer');
    const b = new Browser(con.url);
    const wrong = await b.call('POST', '/console/api/session', { body: { email: m.email, password: 'not the password at all' } });
    const unknown = await b.call('POST', '/console/api/session', {
      body: { email: 'nobody@example.com', password: 'not the password at all' },
    });
    expect(wrong.status).toBe(401);
    expect(unknown.body).toEqual(wrong.body);
    for (let i = 0; i < 2; i++) {
      await b.call('POST', '/console/api/session', { body: { email: m.email, password: 'not the password at all' } });
      await b.call('POST', '/console/api/session', { body: { email: 'nobody@example.com', password: 'not the password at all' } });
    }
    const locked = await b.call('POST', '/console/api/session', {
      body: { email: m.email, password: PASSWORD, code: codeAt(m.secret, con.clock.now) },
    });
    const lockedUnknown = await b.call('POST', '/console/api/session', { body: { email: 'nobody@example.com', password: PASSWORD } });
    expect(locked.status).toBe(429);
    expect(lockedUnknown.body).toEqual(locked.body);
    con.clock.now += 900_000; // the lockout ends
    const after = await b.call('POST', '/console/api/session', {
      body: { email: m.email, password: PASSWORD, code: codeAt(m.secret, con.clock.now) },
    });
    expect(after.status).toBe(201);
  });

  it('refuses a wrong TOTP code and a replayed one; a recovery code works once', async () => {
    const m = await enrolledMember('admin');
    const sign = (code: string) =>
      new Browser(con.url).call('POST', '/console/api/session', { body: { email: m.email, password: PASSWORD, code } });
    const good = codeAt(m.secret, con.clock.now);
    const wrong = good === '000000' ? '111111' : '000000';
    expect((await sign(wrong)).status).toBe(401);
    expect((await sign(good)).status).toBe(201);
    const replay = await sign(good);
    expect(replay.status).toBe(401);
    expect(replay.body.message).toMatch(/incorrect or was already used/);
    // An older step within the window is refused too once a newer one was used.
    expect((await sign(codeAt(m.secret, con.clock.now - 30_000))).status).toBe(401);
    con.clock.now += 30_000;
    expect((await sign(codeAt(m.secret, con.clock.now))).status).toBe(201);
    expect((await sign(m.recovery[0] as string)).status).toBe(201);
    expect((await sign(m.recovery[0] as string)).status).toBe(401);
  });

  it('a recovery code signs in but is no step-up: inviting and creating a key still ask for a fresh code (issue 42 §4)', async () => {
    const m = await enrolledMember('owner');
    const b = new Browser(con.url);
    expect(
      (await b.call('POST', '/console/api/session', { body: { email: m.email, password: PASSWORD, code: m.recovery[0] } })).status,
    ).toBe(201);
    expect((await b.call('GET', '/console/api/me')).body.steppedUpAt).toBeNull();
    const invite = await b.call('POST', '/console/api/members', { body: { email: `a-${m.memberId}@example.com`, role: 'admin' } });
    expect([invite.status, invite.body.code]).toEqual([403, 'step_up_required']);
    const key = await b.call('POST', '/console/api/keys', { body: { name: 'ci', actions: ['wallets:read'], walletIds: '*' } });
    expect([key.status, key.body.code]).toEqual([403, 'step_up_required']);
    // A recovery code is no step-up either; a fresh authenticator code is, and then both work.
    expect((await b.call('POST', '/console/api/step-up', { body: { code: m.recovery[1] } })).status).toBe(401);
    con.clock.now += 30_000;
    expect((await b.call('POST', '/console/api/step-up', { body: { code: codeAt(m.secret, con.clock.now) } })).status).toBe(200);
    expect((await b.call('POST', '/console/api/members', { body: { email: `a-${m.memberId}@example.com`, role: 'admin' } })).status).toBe(
      201,
    );
  });

  it('keeps failed sign-ins as a bounded working table: ended pairs go, a pair still locked out stays locked', async () => {
    const m = await enrolledMember('developer');
    const b = new Browser(con.url);
    const fail = (email: string) => b.call('POST', '/console/api/session', { body: { email, password: 'not the password at all' } });
    const rows = async () => Number((await t.db('member_sign_in_failures').count('* as n').first())?.n);
    await t.db('member_sign_in_failures').delete(); // earlier tests' pairs
    // A spray of made-up emails: one row per pair.
    for (let i = 0; i < 5; i++) expect((await fail(`spray-${i}@example.com`)).status).toBe(401);
    // The member's pair locked out over two minutes: its window started before the lock.
    for (let i = 0; i < 3; i++) {
      expect((await fail(m.email)).status).toBe(401);
      con.clock.now += 60_000;
    }
    expect(await rows()).toBe(6);
    con.clock.now += 900_000 - 120_000; // every window has ended; the member's lockout runs 60 s more
    expect((await fail('one-more@example.com')).status).toBe(401);
    // The sprayed pairs counted for nothing any more and are gone; the lock and the new pair stay.
    expect(await rows()).toBe(2);
    const locked = await b.call('POST', '/console/api/session', {
      body: { email: m.email, password: PASSWORD, code: codeAt(m.secret, con.clock.now) },
    });
    expect(locked.status).toBe(429);
    con.clock.now += 900_000; // the lockout ends for the tests after this one
  });
});

describe('console sign-in audit', () => {
  const rows = async (companyId: number) =>
    (await t.db('audit_log').where({ company_id: companyId }).orderBy('id')).map((r) => [r.action, r.details?.reason ?? r.details ?? null]);
  const post = (body: Record<string, unknown>) => new Browser(con.url).call('POST', '/console/api/session', { body });

  it('records the password set through the invitation link, the first sign-in and the MFA enrollment', async () => {
    const m = await enrolledMember('admin');
    const rows = await t.db('audit_log').where({ company_id: m.companyId, actor_type: 'member' }).orderBy('id');
    expect(rows.map((r) => [r.action, r.actor_id, r.details])).toEqual([
      ['member.password_set', String(m.memberId), { link: 'invitation' }],
      ['member.signed_in', String(m.memberId), null],
      ['member.mfa_enrolled', String(m.memberId), null],
    ]);
    expect(JSON.stringify(rows)).not.toContain(PASSWORD);
  });

  it("records the page's two-step sign-in (password, then password and code) as one sign-in and no failure", async () => {
    const m = await enrolledMember('developer');
    const before = (await rows(m.companyId)).length;
    expect((await post({ email: m.email, password: PASSWORD })).body.code).toBe('mfa_required');
    expect((await post({ email: m.email, password: PASSWORD, code: codeAt(m.secret, con.clock.now) })).status).toBe(201);
    expect((await rows(m.companyId)).slice(before)).toEqual([['member.signed_in', { secondFactor: 'totp' }]]);
  });

  it('still records a wrong password, a wrong code, a replayed code and a locked-out pair as failures', async () => {
    const m = await enrolledMember('developer');
    const before = (await rows(m.companyId)).length;
    const good = codeAt(m.secret, con.clock.now);
    expect((await post({ email: m.email, password: PASSWORD, code: good })).status).toBe(201);
    // Three failures (lockoutFailures here) lock the pair: the fourth try is refused before any check.
    expect((await post({ email: m.email, password: 'not the password at all' })).status).toBe(401);
    expect((await post({ email: m.email, password: PASSWORD, code: good === '000000' ? '111111' : '000000' })).status).toBe(401);
    expect((await post({ email: m.email, password: PASSWORD, code: good })).status).toBe(401);
    expect((await post({ email: m.email, password: PASSWORD, code: good })).status).toBe(429);
    expect((await rows(m.companyId)).slice(before)).toEqual([
      ['member.signed_in', { secondFactor: 'totp' }],
      ['member.sign_in_failed', 'bad_credentials'],
      ['member.sign_in_failed', 'second_factor_wrong'],
      ['member.sign_in_failed', 'second_factor_wrong'],
      ['member.sign_in_failed', 'locked_out'],
    ]);
    con.clock.now += 900_000; // the lockout ends for the tests after this one
  });

  it('writes a refused sign-in only to the company whose member it was, not to another company with that email (issue 42 §5)', async () => {
    const email = `both-${Math.random().toString(36).slice(2)}@example.com`;
    const one = await enrolledMember('developer', email);
    // The same person's membership of a second company, with that company's own password.
    const two = { companyId: (await seedCompany(t.db, 'paid', 'Other')).companyId };
    const inv = await inviteMember(t.db, { companyId: two.companyId, email, role: 'developer' }, con.clock.now, 86_400_000);
    expect(
      (await new Browser(con.url).call('POST', `/console/api/links/${inv.token}`, { body: { password: 'another long passphrase' } }))
        .status,
    ).toBe(200);
    const before: [number, number] = [(await rows(one.companyId)).length, (await rows(two.companyId)).length];
    const good = codeAt(one.secret, con.clock.now);
    // Company one's password, a wrong code: company one's member, so company one's row only.
    expect((await post({ email, password: PASSWORD, code: good === '000000' ? '111111' : '000000' })).status).toBe(401);
    expect((await rows(one.companyId)).slice(before[0])).toEqual([['member.sign_in_failed', 'second_factor_wrong']]);
    expect((await rows(two.companyId)).slice(before[1])).toEqual([]);
    // No password matched: nothing says whose member was tried, so neither company's log has it.
    expect((await post({ email, password: 'not the password at all' })).status).toBe(401);
    expect((await rows(one.companyId)).length).toBe(before[0] + 1);
    expect((await rows(two.companyId)).length).toBe(before[1]);
    const operator = await t
      .db('audit_log')
      .whereNull('company_id')
      .where({ action: 'member.sign_in_failed' })
      .orderBy('id', 'desc')
      .first();
    expect(operator.details).toEqual({ email, reason: 'bad_credentials' });
  });

  it('says so in the audit log when a recovery code signs a member in, with how many codes are left', async () => {
    const m = await enrolledMember('admin');
    const before = (await rows(m.companyId)).length;
    const ok = await post({ email: m.email, password: PASSWORD, code: m.recovery[3] as string });
    expect(ok.status).toBe(201);
    const after = await t.db('audit_log').where({ company_id: m.companyId }).orderBy('id').offset(before);
    expect(after.map((r) => [r.action, r.actor_type, r.actor_id, r.details])).toEqual([
      ['member.signed_in', 'member', String(m.memberId), { secondFactor: 'recovery_code' }],
      ['member.mfa_recovery_code_used', 'member', String(m.memberId), { recoveryCodesLeft: 9 }],
    ]);
    // Never the code itself.
    expect(JSON.stringify(after)).not.toContain(m.recovery[3]);
  });
});
