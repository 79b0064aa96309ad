import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { addMember } from '../../company/companies';
import {
  Browser,
  createTestDatabase,
  onboardMember,
  runWalletdAsync,
  seedCompany,
  startConsole,
  type TestDatabase,
} from '@walletd/test-harness';

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

// One master key for the file: the first command run against the database ties it to that key.
const masterKey = randomBytes(32).toString('hex');
const cliEnv = () => ({
  DATABASE_URL: t.url,
  WALLETD_MASTER_KEY: masterKey,
  WALLETD_DATA_DIR: mkdtempSync(join(tmpdir(), 'walletd-invite-')),
  WALLETD_CONSOLE_PORT: '9123',
});

describe('walletd admin member invite', () => {
  it('prints a one-time owner link while no owner can sign in; an owner must then enroll MFA', async () => {
    const s = await seedCompany(t.db);
    const env = cliEnv();
    const args = ['admin', 'member', 'invite', '--company', String(s.companyId), '--email', 'ada@example.com', '--role', 'owner'];
    const out = await runWalletdAsync(args, env);
    expect(out.status).toBe(0);
    expect(out.json).toMatchObject({ email: 'ada@example.com', role: 'owner', purpose: 'invitation' });
    // The audit log says the operator issued it, without the token.
    const row = await t.db('audit_log').where({ company_id: s.companyId, action: 'member.invited' }).first();
    expect(row).toMatchObject({ actor_type: 'operator', target_type: 'member', target_id: String(out.json.memberId) });
    expect(JSON.stringify(row)).not.toContain(out.json.token);
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

  it('refuses (exit 2, pointing to the console) once an owner can sign in, for other roles, and for a non-owner email', async () => {
    const s = await seedCompany(t.db);
    const env = cliEnv();
    const company = String(s.companyId);
    const admin = await addMember(t.db, { companyId: s.companyId, email: 'grace@example.com', role: 'admin' });
    const asAdmin = await runWalletdAsync(
      ['admin', 'member', 'invite', '--company', company, '--email', 'new@example.com', '--role', 'admin'],
      env,
    );
    expect([asAdmin.status, asAdmin.stdout]).toEqual([2, '']);
    expect(asAdmin.stderr).toContain("the CLI invites only a company's owner (bootstrap and recovery); invite, promote, remove members");
    const notOwner = await runWalletdAsync(['admin', 'member', 'invite', '--company', company, '--email', 'GRACE@example.com'], env);
    expect(notOwner.status).toBe(2);
    expect(notOwner.stderr).toContain('grace@example.com is a member with role admin, not an owner');

    // The seeded owner sets a password and an authenticator: from now on people manage people.
    await onboardMember(con, t.db, { companyId: s.companyId, email: `owner-${s.companyId}@example.com`, role: 'owner' });
    const again = await runWalletdAsync(
      ['admin', 'member', 'invite', '--company', company, '--email', `owner-${s.companyId}@example.com`],
      env,
    );
    expect(again.status).toBe(2);
    expect(again.stderr).toContain(`company ${company} has an owner who can sign in (owner-${company}@example.com)`);
    expect(again.stderr).toContain('in the console (Members page)');
    expect(again.stdout).toBe('');

    for (const args of [
      ['add', '--company', company, '--email', 'x@example.com', '--role', 'owner'],
      ['set-role', '--member', String(admin.id), '--role', 'owner'],
      ['remove', '--member', String(s.ownerId)],
    ]) {
      const r = await runWalletdAsync(['admin', 'member', ...args], env);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(
        new RegExp(`^walletd admin member ${args[0]} was removed: the CLI authenticates nobody, so .* in the console \\(Members page\\)`),
      );
    }
    const members = await t.db('members').where({ company_id: s.companyId }).orderBy('id');
    expect(members.map((m) => [m.email, m.role, m.removed_at])).toEqual([
      [`owner-${company}@example.com`, 'owner', null],
      ['grace@example.com', 'admin', null],
    ]);
    const list = await runWalletdAsync(['admin', 'member', 'list', '--company', company], env);
    expect(list.status).toBe(0);
    expect(list.json).toHaveLength(2);
  });
});
