import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Browser, createTestDatabase, runWalletdAsync, seedCompany, startConsole, type TestDatabase } from '@walletd/test-harness';

let t: TestDatabase;
let con: Awaited<ReturnType<typeof startConsole>>;

beforeAll(async () => {
  t = await createTestDatabase();
  con = await startConsole(t.db);
});
afterAll(async () => {
  await con.close();
  await t.drop();
});

describe('walletd admin member invite', () => {
  it('prints a one-time link that sets the password; an admin must then enroll MFA', async () => {
    const s = await seedCompany(t.db);
    const env = {
      DATABASE_URL: t.url,
      WALLETD_MASTER_KEY: randomBytes(32).toString('hex'),
      WALLETD_DATA_DIR: mkdtempSync(join(tmpdir(), 'walletd-invite-')),
      WALLETD_CONSOLE_PORT: '9123',
    };
    const args = ['admin', 'member', 'invite', '--company', String(s.companyId), '--email', 'ada@example.com', '--role', 'admin'];
    const out = await runWalletdAsync(args, env);
    expect(out.status).toBe(0);
    expect(out.json).toMatchObject({ email: 'ada@example.com', role: 'admin', purpose: 'invitation' });
    expect(out.json.path).toBe(`/console/links/${out.json.token}`);
    // A full URL on the configured console port (the default host 0.0.0.0 is opened as localhost).
    expect(out.json.url).toBe(`http://localhost:9123/console/links/${out.json.token}`);
    expect(out.stderr).toContain(out.json.url);
    // The database keeps only the token's hash.
    expect(await t.db('member_links').where({ token_hash: out.json.token }).first()).toBeUndefined();

    const b = new Browser(con.url);
    const short = await b.call('POST', `/console/api/links/${out.json.token}`, { body: { password: 'short' } });
    expect(short.status).toBe(400);
    expect((await b.call('POST', `/console/api/links/${out.json.token}`, { body: { password: 'a long enough passphrase' } })).status).toBe(
      200,
    );
    const signed = await b.call('POST', '/console/api/session', {
      body: { email: 'ada@example.com', password: 'a long enough passphrase' },
    });
    expect(signed.status).toBe(201);
    expect(signed.body.mfaEnrollmentRequired).toBe(true);
    const stepUp = await b.call('POST', '/console/api/step-up', { body: { code: '123456' } });
    expect(stepUp.status).toBe(403);
    expect(stepUp.body.code).toBe('mfa_enrollment_required');

    // Invited again once a password is set: a reset link, which ends the member's sessions when used.
    const again = await runWalletdAsync(args, env);
    expect(again.json.purpose).toBe('password_reset');
    expect(
      (await new Browser(con.url).call('POST', `/console/api/links/${again.json.token}`, { body: { password: 'another long passphrase' } }))
        .status,
    ).toBe(200);
    expect((await b.call('GET', '/console/api/me')).status).toBe(401);
  });
});
