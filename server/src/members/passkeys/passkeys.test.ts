import { MasterKey, createLogger } from '@walletd/core';
import { randomBytes } from 'node:crypto';
import {
  Browser,
  type ConsoleServer,
  SoftPasskey,
  type TestDatabase,
  createTestDatabase,
  onboardMember,
  seedCompany,
  startConsole,
} from '@walletd/test-harness';
import { inviteMember } from '../links/inviteMember';

/**
 * Passkeys over the console's HTTP API with a software authenticator: enroll (step-up first once a
 * factor exists), sign in with one as the second factor, step up with one; a replayed assertion, a
 * challenge that is not the session's, another origin and a counter that did not move forward are
 * refused; the last second factor cannot be removed. Every change is audited.
 */
describe('console passkeys', () => {
  let t: TestDatabase;
  let con: ConsoleServer;
  const PASSWORD = 'correct horse battery staple';

  beforeAll(async () => {
    t = await createTestDatabase();
    con = await startConsole(t.db);
  });
  afterAll(async () => {
    await con.close();
    await t.drop();
  });

  const audit = async (companyId: number) =>
    (await t.db('audit_log').where({ company_id: companyId, actor_type: 'member' }).orderBy('id')).map((r) => [r.action, r.details]);
  const enroll = async (b: Browser, key: SoftPasskey, name: string) => {
    const options = await b.call('POST', '/console/api/passkeys/options');
    if (options.status !== 200) return options;
    return b.call('POST', '/console/api/passkeys', { body: { name, response: key.register(options.body) } });
  };
  const stepUpOptions = async (b: Browser) => (await b.call('POST', '/console/api/step-up/passkey-options')).body as { challenge: string };
  const signInOptions = async (b: Browser, email: string) => {
    const r = await b.call('POST', '/console/api/session', { body: { email, password: PASSWORD } });
    expect([r.status, r.body.code, r.body.factors]).toEqual([401, 'mfa_required', { totp: expect.any(Boolean), passkey: true }]);
    return r.body.passkeyOptions as { challenge: string; rpId: string; allowCredentials: { id: string }[] };
  };
  const signInWith = (b: Browser, email: string, passkey: unknown) =>
    b.call('POST', '/console/api/session', { body: { email, password: PASSWORD, passkey } });

  it('enrolls after a step-up, signs in and steps up with the passkey; replays, foreign challenges, other origins and clones are refused', async () => {
    const s = await seedCompany(t.db);
    const m = await onboardMember(con, t.db, { companyId: s.companyId, email: 'pat@acme.test', role: 'admin' });
    const key = new SoftPasskey(con.publicUrl);

    // The sign-in's code is six minutes old: adding a passkey to an account with a factor needs a fresh one.
    con.clock.now += 6 * 60_000;
    const refused = await enroll(m.b, key, 'laptop');
    expect([refused.status, refused.body.code]).toEqual([403, 'step_up_required']);
    expect((await m.b.call('POST', '/console/api/step-up', { body: { code: m.code() } })).status).toBe(200);
    const options = await m.b.call('POST', '/console/api/passkeys/options');
    expect(options.body).toMatchObject({ rp: { id: 'localhost', name: 'walletd' }, attestation: 'none' });
    // A registration signed for another origin (a look-alike site) is refused and uses the challenge up.
    const phished = key.register(options.body);
    const foreign = {
      ...phished,
      response: {
        ...phished.response,
        clientDataJSON: Buffer.from(
          JSON.stringify({ type: 'webauthn.create', challenge: options.body.challenge, origin: 'http://evil.test' }),
        ).toString('base64url'),
      },
    };
    expect((await m.b.call('POST', '/console/api/passkeys', { body: { name: 'laptop', response: foreign } })).status).toBe(400);
    expect((await m.b.call('POST', '/console/api/passkeys', { body: { name: 'laptop', response: phished } })).status).toBe(400);
    const added = await enroll(m.b, key, 'laptop');
    expect([added.status, added.body]).toEqual([
      201,
      { id: expect.any(Number), name: 'laptop', transports: ['internal'], createdAt: expect.any(String), lastUsedAt: null },
    ]);
    expect((await m.b.call('GET', '/console/api/passkeys')).body.items).toEqual([added.body]);
    expect((await m.b.call('GET', '/console/api/me')).body).toMatchObject({ passkeys: 1, mfaEnrolled: true });

    // Sign out, sign in with password + passkey: the passkey is the second factor and a step-up.
    expect((await m.b.call('DELETE', '/console/api/session')).status).toBe(204);
    const signInChallenge = await signInOptions(m.b, m.email);
    expect(signInChallenge.allowCredentials.map((c) => c.id)).toEqual([key.id.toString('base64url')]);
    const assertion = key.assert(signInChallenge);
    const signedIn = await signInWith(m.b, m.email, assertion);
    expect(signedIn.status).toBe(201);
    expect((await m.b.call('GET', '/console/api/me')).body.steppedUpAt).toBe(new Date(con.clock.now).toISOString());

    // The same assertion again (a recorded request replayed): its challenge is used.
    const replay = await signInWith(new Browser(con.url), m.email, assertion);
    expect([replay.status, replay.body.code]).toEqual([401, 'unauthorized']);
    // A signature over a challenge the server never issued, and one signed for another origin.
    await signInOptions(new Browser(con.url), m.email);
    expect((await signInWith(new Browser(con.url), m.email, key.assert({ challenge: 'bm90LWlzc3VlZC1ieS10aGUtc2VydmVy' }))).status).toBe(
      401,
    );
    const fresh = await signInOptions(new Browser(con.url), m.email);
    expect((await signInWith(new Browser(con.url), m.email, key.assert(fresh, { origin: 'http://localhost:1' }))).status).toBe(401);
    // A challenge expires after two minutes.
    const stale = await signInOptions(new Browser(con.url), m.email);
    con.clock.now += 121_000;
    expect((await signInWith(new Browser(con.url), m.email, key.assert(stale))).status).toBe(401);

    // Step-up with the passkey; the step-up's challenge belongs to this session only.
    con.clock.now += 6 * 60_000;
    const other = new Browser(con.url);
    expect((await signInWith(other, m.email, key.assert(await signInOptions(other, m.email)))).status).toBe(201);
    const othersChallenge = await stepUpOptions(other);
    expect((await m.b.call('POST', '/console/api/step-up', { body: { passkey: key.assert(othersChallenge) } })).status).toBe(401);
    const stepUp = key.assert(await stepUpOptions(m.b));
    expect((await m.b.call('POST', '/console/api/step-up', { body: { passkey: stepUp } })).status).toBe(200);
    expect((await m.b.call('POST', '/console/api/step-up', { body: { passkey: stepUp } })).status).toBe(401);

    // A clone: a valid signature whose counter did not move past the stored one.
    const [before] = await t.db('member_passkeys').where({ member_id: m.memberId });
    const clone = await m.b.call('POST', '/console/api/step-up', {
      body: { passkey: key.assert(await stepUpOptions(m.b), { counter: Number(before.counter) }) },
    });
    expect([clone.status, clone.body.code]).toEqual([401, 'unauthorized']);
    const [after] = await t.db('member_passkeys').where({ member_id: m.memberId });
    expect([after.counter, Number(after.counter)]).toEqual([before.counter, key.counter]);

    const rows = (await audit(s.companyId)).filter(([a]) => /passkey|stepped_up|signed_in|step_up_failed/.test(a));
    const passkeyId = added.body.id;
    expect(rows).toEqual([
      ['member.signed_in', null],
      ['member.signed_in', { secondFactor: 'totp' }],
      ['member.passkey_enrolled', { passkeyId, name: 'laptop' }],
      ['member.signed_in', { secondFactor: 'passkey' }],
      ['member.signed_in', { secondFactor: 'passkey' }],
      ['member.step_up_failed', null],
      ['member.stepped_up', { factor: 'passkey', passkeyId }],
      ['member.step_up_failed', null],
      ['member.passkey_counter_regressed', null],
      ['member.step_up_failed', null],
    ]);
    // Nothing secret in the audit: no challenge, no signature, no key.
    expect(JSON.stringify(await t.db('audit_log').where({ company_id: s.companyId }))).not.toContain(stepUp.response.signature);
  });

  it('keeps the last second factor: a passkey-only member cannot remove their only passkey', async () => {
    const s = await seedCompany(t.db);
    const email = 'solo@acme.test';
    const inv = await inviteMember(t.db, { companyId: s.companyId, email, role: 'admin' }, con.clock.now, 86_400_000);
    const b = new Browser(con.url);
    expect((await b.call('POST', `/console/api/links/${inv.token}`, { body: { password: PASSWORD } })).status).toBe(200);
    expect((await b.call('POST', '/console/api/session', { body: { email, password: PASSWORD } })).body.mfaEnrollmentRequired).toBe(true);
    // No factor yet: the first one is enrolled on the password session, as TOTP is.
    const first = new SoftPasskey(con.publicUrl);
    const k1 = await enroll(b, first, 'security key');
    expect(k1.status).toBe(201);
    expect((await b.call('GET', '/console/api/me')).body).toMatchObject({ mfaEnrollmentRequired: false, mfaEnrolled: false, passkeys: 1 });
    // The Members page counts a passkey as a second factor.
    const listed = (await b.call('GET', '/console/api/members')).body.data as { email: string; mfaEnrolled: boolean }[];
    expect(listed.find((x) => x.email === email)?.mfaEnrolled).toBe(true);
    // Removing needs a step-up, and the only factor is never removed.
    const noStepUp = await b.call('DELETE', `/console/api/passkeys/${k1.body.id}`);
    expect([noStepUp.status, noStepUp.body.code]).toEqual([403, 'step_up_required']);
    expect((await b.call('POST', '/console/api/step-up', { body: { passkey: first.assert(await stepUpOptions(b)) } })).status).toBe(200);
    const last = await b.call('DELETE', `/console/api/passkeys/${k1.body.id}`);
    expect([last.status, last.body.code, last.body.message]).toEqual([
      409,
      'conflict',
      'This is your last second factor: enroll another passkey or an authenticator app first',
    ]);
    // With a second passkey, the first can go; then the second is the last.
    const second = new SoftPasskey(con.publicUrl);
    const k2 = await enroll(b, second, 'phone');
    expect(k2.status).toBe(201);
    expect((await b.call('DELETE', `/console/api/passkeys/${k1.body.id}`)).status).toBe(204);
    expect((await b.call('DELETE', `/console/api/passkeys/${k2.body.id}`)).status).toBe(409);
    // Another member's passkey is not found, whatever its id.
    const m = await onboardMember(con, t.db, { companyId: s.companyId, email: 'nosy@acme.test', role: 'admin' });
    expect((await m.b.call('DELETE', `/console/api/passkeys/${k2.body.id}`)).status).toBe(404);
    expect((await t.db('member_passkeys').where({ member_id: inv.memberId })).map((r) => r.name)).toEqual(['phone']);
    expect((await audit(s.companyId)).filter(([a]) => a.startsWith('member.passkey'))).toEqual([
      ['member.passkey_enrolled', { passkeyId: k1.body.id, name: 'security key' }],
      ['member.passkey_enrolled', { passkeyId: k2.body.id, name: 'phone' }],
      ['member.passkey_removed', { passkeyId: k1.body.id }],
    ]);
  });

  it('writes no TOTP secret, otpauth URI, challenge or signature to the logs', async () => {
    const lines: string[] = [];
    const logged = await startConsole(
      t.db,
      {},
      new MasterKey(randomBytes(32)),
      createLogger({ level: 'trace', destination: { write: (l: string) => lines.push(l) } as never }),
    );
    try {
      const s = await seedCompany(t.db);
      const m = await onboardMember(logged, t.db, { companyId: s.companyId, email: 'quiet@acme.test', role: 'owner' });
      const key = new SoftPasskey(logged.publicUrl);
      const options = await m.b.call('POST', '/console/api/passkeys/options');
      const registration = key.register(options.body);
      expect((await m.b.call('POST', '/console/api/passkeys', { body: { name: 'key', response: registration } })).status).toBe(201);
      const challenge = (await m.b.call('POST', '/console/api/step-up/passkey-options')).body;
      const assertion = key.assert(challenge);
      expect((await m.b.call('POST', '/console/api/step-up', { body: { passkey: assertion } })).status).toBe(200);
      expect(lines.length).toBeGreaterThan(5); // the access log did write the requests
      const all = lines.join('\n');
      for (const secret of [
        m.secret,
        encodeURIComponent(m.secret),
        options.body.challenge,
        challenge.challenge,
        assertion.response.signature,
        registration.response.attestationObject,
      ])
        expect(all).not.toContain(secret);
    } finally {
      await logged.close();
    }
  });
});
