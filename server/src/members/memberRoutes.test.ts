import {
  Browser,
  type ConsoleServer,
  createTestDatabase,
  onboardMember,
  seedCompany,
  startConsole,
  type TestDatabase,
} from '@walletd/test-harness';
import { addMember, setMemberRole } from '../company/companies';
import { inviteMember } from './links/inviteMember';

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

type Member = Awaited<ReturnType<typeof onboardMember>>;

/** A company whose only owner is signed in (with MFA), plus an admin, both through the console. */
async function company() {
  const s = await seedCompany(t.db);
  const owner = await onboardMember(con, t.db, { companyId: s.companyId, email: `owner-${s.companyId}@example.com`, role: 'owner' });
  const admin = await onboardMember(con, t.db, { companyId: s.companyId, email: `admin-${s.companyId}@example.com`, role: 'admin' });
  return { companyId: s.companyId, owner, admin };
}

/** Sessions signed in with a code count as stepped up for a few minutes; six later they do not. */
const staleStepUp = () => {
  con.clock.now += 6 * 60_000;
};
const stepUp = async (m: Member) => expect((await m.b.call('POST', '/console/api/step-up', { body: { code: m.code() } })).status).toBe(200);
const auditRows = (companyId: number, action: string) => t.db('audit_log').where({ company_id: companyId, action }).orderBy('id');

describe('console members API', () => {
  it('lists members with role, MFA, pending invitation and last sign-in; any member may read it', async () => {
    const c = await company();
    await inviteMember(t.db, { companyId: c.companyId, email: 'new@example.com', role: 'viewer' }, con.clock.now, 86_400_000);
    const viewer = await onboardMember(con, t.db, { companyId: c.companyId, email: `v-${c.companyId}@example.com`, role: 'viewer' });
    const res = await viewer.b.call('GET', '/console/api/members');
    expect(res.status).toBe(200);
    const byEmail = Object.fromEntries(res.body.data.map((m: { email: string }) => [m.email, m]));
    expect(byEmail[c.owner.email]).toMatchObject({ id: c.owner.memberId, role: 'owner', mfaEnrolled: true, invitationPending: false });
    expect(typeof byEmail[c.owner.email].lastSignInAt).toBe('string');
    expect(byEmail['new@example.com']).toMatchObject({ role: 'viewer', mfaEnrolled: false, invitationPending: true, lastSignInAt: null });
    expect(JSON.stringify(res.body)).not.toMatch(/password|secret|token/i);
  });

  it('invites with a step-up: 201 with a one-time link that works, audited without the token', async () => {
    const c = await company();
    staleStepUp();
    const first = await c.admin.b.call('POST', '/console/api/members', { body: { email: 'ada@example.com', role: 'developer' } });
    expect(first.status).toBe(403);
    expect(first.body.code).toBe('step_up_required');
    expect(await t.db('members').where({ email: 'ada@example.com' }).first()).toBeUndefined();
    await stepUp(c.admin);
    const inv = await c.admin.b.call('POST', '/console/api/members', { body: { email: 'ada@example.com', role: 'developer' } });
    expect(inv.status).toBe(201);
    expect(inv.body).toMatchObject({
      member: { email: 'ada@example.com', role: 'developer', invitationPending: true },
      purpose: 'invitation',
    });
    expect(inv.body.url).toMatch(new RegExp(`^${con.url}/console/links/[A-Za-z0-9_-]+$`));
    const token = inv.body.url.split('/').pop();
    const [row] = await auditRows(c.companyId, 'member.invited');
    expect(row).toMatchObject({
      actor_type: 'member',
      actor_id: String(c.admin.memberId),
      target_type: 'member',
      target_id: String(inv.body.member.id),
    });
    expect(row.ip).toMatch(/127\.0\.0\.1/);
    expect(JSON.stringify(row)).not.toContain(token);
    const accepted = await new Browser(con.url).call('POST', `/console/api/links/${token}`, {
      body: { password: 'a long enough passphrase' },
    });
    expect(accepted.status).toBe(200);
    // Inviting someone who is already a member is a conflict, not a back door to their reset link.
    const dup = await c.admin.b.call('POST', '/console/api/members', { body: { email: 'ADA@example.com', role: 'admin' } });
    expect(dup.status).toBe(409);
    expect(dup.body.message).toContain('already a member');
  });

  it('refuses bad input with 400 validation_failed naming the field', async () => {
    const c = await company();
    const cases: [string, string, unknown, string][] = [
      ['POST', '/console/api/members', { email: 'not-an-email', role: 'admin' }, '"email"'],
      ['POST', '/console/api/members', { email: 'x@example.com', role: 'god' }, '"role"'],
      ['PATCH', `/console/api/members/${c.admin.memberId}`, { role: 7 }, '"role"'],
      ['PATCH', '/console/api/members/abc', { role: 'viewer' }, '"id"'],
      ['DELETE', '/console/api/members/-1', undefined, '"id"'],
    ];
    for (const [method, path, body, field] of cases) {
      const res = await c.owner.b.call(method, path, { body });
      expect([res.status, res.body.code]).toEqual([400, 'validation_failed']);
      expect(res.body.message).toContain(field);
    }
  });

  it('a viewer reads but may not manage (403); an admin may not touch owners; nobody changes their own role', async () => {
    const c = await company();
    const viewer = await onboardMember(con, t.db, { companyId: c.companyId, email: `v-${c.companyId}@example.com`, role: 'viewer' });
    for (const [method, path, body] of [
      ['POST', '/console/api/members', { email: 'x@example.com', role: 'viewer' }],
      ['PATCH', `/console/api/members/${c.admin.memberId}`, { role: 'viewer' }],
      ['DELETE', `/console/api/members/${c.admin.memberId}`, undefined],
      ['POST', `/console/api/members/${c.admin.memberId}/reset-link`, undefined],
    ] as const) {
      const res = await viewer.b.call(method, path, { body });
      expect([res.status, res.body.code]).toEqual([403, 'role_insufficient']);
      expect(res.body.message).toBe('Your role (viewer) may not manage members; owners and admins may');
    }
    const attempts = [
      await c.admin.b.call('POST', '/console/api/members', { body: { email: 'o2@example.com', role: 'owner' } }),
      await c.admin.b.call('PATCH', `/console/api/members/${viewer.memberId}`, { body: { role: 'owner' } }),
      await c.admin.b.call('PATCH', `/console/api/members/${c.owner.memberId}`, { body: { role: 'viewer' } }),
      await c.admin.b.call('DELETE', `/console/api/members/${c.owner.memberId}`),
      await c.admin.b.call('POST', `/console/api/members/${c.owner.memberId}/reset-link`),
    ];
    for (const res of attempts) {
      expect([res.status, res.body.code]).toEqual([403, 'role_insufficient']);
      expect(res.body.message).toMatch(/^Your role \(admin\) may not .*owner.*; only owners may$/);
    }
    const self = await c.admin.b.call('PATCH', `/console/api/members/${c.admin.memberId}`, { body: { role: 'viewer' } });
    expect([self.status, self.body.message]).toEqual([403, 'You cannot change your own role: another owner or admin has to']);
    const ownerSelf = await c.owner.b.call('PATCH', `/console/api/members/${c.owner.memberId}`, { body: { role: 'admin' } });
    expect(ownerSelf.status).toBe(403);
    expect((await t.db('members').where({ company_id: c.companyId }).orderBy('id').select('role')).map((r) => r.role)).toEqual([
      'owner',
      'admin',
      'viewer',
    ]);
  });

  it('a promotion needs a step-up, a demotion does not; both are audited with from and to', async () => {
    const c = await company();
    const viewer = await onboardMember(con, t.db, { companyId: c.companyId, email: `v-${c.companyId}@example.com`, role: 'viewer' });
    staleStepUp();
    const path = `/console/api/members/${viewer.memberId}`;
    const up = await c.owner.b.call('PATCH', path, { body: { role: 'admin' } });
    expect([up.status, up.body.code]).toEqual([403, 'step_up_required']);
    await stepUp(c.owner);
    expect((await c.owner.b.call('PATCH', path, { body: { role: 'admin' } })).body).toMatchObject({ role: 'admin' });
    staleStepUp();
    const down = await c.owner.b.call('PATCH', path, { body: { role: 'developer' } });
    expect([down.status, down.body.role]).toEqual([200, 'developer']);
    const rows = await auditRows(c.companyId, 'member.role_changed');
    expect(rows.map((r) => [r.actor_id, r.target_id, r.details.from, r.details.to])).toEqual([
      [String(c.owner.memberId), String(viewer.memberId), 'viewer', 'admin'],
      [String(c.owner.memberId), String(viewer.memberId), 'admin', 'developer'],
    ]);
    // The demoted member's next request runs with the new role.
    const again = await viewer.b.call('POST', '/console/api/members', { body: { email: 'z@example.com', role: 'viewer' } });
    expect([again.status, again.body.code]).toEqual([403, 'role_insufficient']);
  });

  it('the last owner can be neither removed nor demoted (409 in words); with two owners, one may go', async () => {
    const c = await company();
    const self = await c.owner.b.call('DELETE', `/console/api/members/${c.owner.memberId}`);
    expect(self.status).toBe(409);
    expect(self.body.code).toBe('conflict');
    expect(self.body.message).toBe(
      `${c.owner.email} is the company's last owner: make another member owner first, a company always keeps one`,
    );
    await expect(setMemberRole(t.db, c.owner.memberId, 'admin')).rejects.toThrow("is the company's last owner");
    const second = await addMember(t.db, { companyId: c.companyId, email: 'o2@example.com', role: 'owner' });
    const removed = await c.owner.b.call('DELETE', `/console/api/members/${second.id}`);
    expect([removed.status, removed.body.removed]).toEqual([200, true]);
    expect((await c.owner.b.call('DELETE', `/console/api/members/${c.owner.memberId}`)).status).toBe(409);
  });

  it('removal ends the member session at once and is audited; another company sees 404', async () => {
    const c = await company();
    const other = await company();
    expect((await c.admin.b.call('GET', '/console/api/me')).status).toBe(200);
    for (const [method, path, body] of [
      ['PATCH', `/console/api/members/${c.admin.memberId}`, { role: 'viewer' }],
      ['DELETE', `/console/api/members/${c.admin.memberId}`, undefined],
      ['POST', `/console/api/members/${c.admin.memberId}/reset-link`, undefined],
    ] as const) {
      const res = await other.owner.b.call(method, path, { body });
      expect([res.status, res.body.code]).toEqual([404, 'not_found']);
    }
    const res = await c.owner.b.call('DELETE', `/console/api/members/${c.admin.memberId}`);
    expect(res.status).toBe(200);
    expect((await c.admin.b.call('GET', '/console/api/me')).status).toBe(401);
    expect(await t.db('member_sessions').where({ member_id: c.admin.memberId }).whereNull('revoked_at').first()).toBeUndefined();
    const [row] = await auditRows(c.companyId, 'member.removed');
    expect(row).toMatchObject({ actor_id: String(c.owner.memberId), target_id: String(c.admin.memberId) });
    expect((await c.owner.b.call('GET', '/console/api/members')).body.data.map((m: { email: string }) => m.email)).toEqual([c.owner.email]);
  });

  it('issues a reset link with a step-up; using it ends the member sessions; audited without the token', async () => {
    const c = await company();
    staleStepUp();
    const path = `/console/api/members/${c.admin.memberId}/reset-link`;
    expect((await c.owner.b.call('POST', path)).body.code).toBe('step_up_required');
    await stepUp(c.owner);
    const link = await c.owner.b.call('POST', path);
    expect(link.status).toBe(200);
    expect(link.body).toMatchObject({ purpose: 'password_reset', member: { id: c.admin.memberId } });
    const token = link.body.url.split('/').pop();
    expect(
      (await new Browser(con.url).call('POST', `/console/api/links/${token}`, { body: { password: 'a brand new passphrase' } })).status,
    ).toBe(200);
    expect((await c.admin.b.call('GET', '/console/api/me')).status).toBe(401);
    const [row] = await auditRows(c.companyId, 'member.reset_link_issued');
    expect(row).toMatchObject({ actor_id: String(c.owner.memberId), target_id: String(c.admin.memberId) });
    expect(JSON.stringify(row)).not.toContain(token);
  });

  it('an admin who has not enrolled an authenticator is sent to enroll first', async () => {
    const c = await company();
    const inv = await inviteMember(t.db, { companyId: c.companyId, email: 'late@example.com', role: 'admin' }, con.clock.now, 86_400_000);
    const b = new Browser(con.url);
    await b.call('POST', `/console/api/links/${inv.token}`, { body: { password: 'a long enough passphrase' } });
    expect(
      (await b.call('POST', '/console/api/session', { body: { email: 'late@example.com', password: 'a long enough passphrase' } })).status,
    ).toBe(201);
    const res = await b.call('GET', '/console/api/members');
    expect([res.status, res.body.code]).toEqual([403, 'mfa_enrollment_required']);
  });
});
