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

const member = (companyId: number, role: string) =>
  onboardMember(con, t.db, { companyId, email: `${role}-${Math.random().toString(36).slice(2)}@example.com`, role });
const me = async (key: string) => (await call(app.url, 'GET', '/v1/me', { key })).status;
const READ = { actions: ['wallets:read'], walletIds: '*' };

describe('API keys in the console', () => {
  it('an owner creates a key with a step-up and sees its secret once; revoking it stops it on the next request', async () => {
    const s = await seedCompany(t.db);
    const owner = await member(s.companyId, 'owner');
    // The sign-in code was the last step-up; six minutes later a key needs a fresh one.
    con.clock.now += 6 * 60_000;
    const body = {
      name: 'billing',
      actions: ['wallets:read', 'withdrawals:create'],
      walletIds: '*',
      allowIps: ['127.0.0.1', '10.0.0.0/8'],
      expiresIn: '90d',
    };
    const stale = await owner.b.call('POST', '/console/api/keys', { body });
    expect([stale.status, stale.body.code]).toEqual([403, 'step_up_required']);
    expect((await owner.b.call('POST', '/console/api/step-up', { body: { code: owner.code() } })).status).toBe(200);
    const created = await owner.b.call('POST', '/console/api/keys', { body });
    expect(created.status).toBe(201);
    const secret = created.body.key as string;
    expect(secret).toMatch(/^svc_live_/);
    expect(created.body.record).toMatchObject({
      name: 'billing',
      actions: ['wallets:read', 'withdrawals:create'],
      walletIds: '*',
      allowIps: ['127.0.0.1/32', '10.0.0.0/8'],
      createdBy: owner.memberId,
      createdByEmail: owner.email,
      status: 'active',
      revokedAt: null,
    });
    expect(Date.parse(created.body.record.expiresAt) - Date.now()).toBeGreaterThan(89 * 86_400_000);
    // A second API process on the same database: both have seen the key before it is revoked.
    const second = await startTestApp(t.db);
    expect(await me(secret)).toBe(200);
    expect((await call(second.url, 'GET', '/v1/me', { key: secret })).status).toBe(200);

    const list = await owner.b.call('GET', '/console/api/keys');
    expect(list.status).toBe(200);
    expect(list.body.data.map((k: { id: number }) => k.id)).toContain(created.body.record.id);
    expect(list.body.mayCreate).toBe(true);
    expect(list.body.actions).toContainEqual({
      action: 'withdrawals:create',
      description: 'prepare, sign and broadcast withdrawals; also read the sealed wallet secret',
      global: false,
      allowed: true,
    });
    expect(JSON.stringify(list.body)).not.toContain(secret);
    expect(JSON.stringify(list.body)).not.toContain(s.rootKey);

    const revoked = await owner.b.call('POST', `/console/api/keys/${created.body.record.id}/revoke`);
    expect(revoked.body).toMatchObject({ id: created.body.record.id, status: 'revoked' });
    expect(await me(secret)).toBe(401);
    expect((await call(second.url, 'GET', '/v1/me', { key: secret })).status).toBe(401);
    await second.close();
    // Revoking again changes nothing and is not recorded twice.
    expect((await owner.b.call('POST', `/console/api/keys/${created.body.record.id}/revoke`)).status).toBe(200);

    const rows = await t
      .db('audit_log')
      .where({ company_id: s.companyId })
      .whereIn('action', ['api_key.created', 'api_key.revoked'])
      .orderBy('id');
    expect(rows.map((r) => [r.action, r.actor_type, r.actor_id, r.target_type, r.target_id])).toEqual([
      ['api_key.created', 'member', String(owner.memberId), 'api_key', String(created.body.record.id)],
      ['api_key.revoked', 'member', String(owner.memberId), 'api_key', String(created.body.record.id)],
    ]);
    expect(rows.every((r) => r.ip)).toBe(true);
    expect(JSON.stringify(rows)).not.toContain(secret.slice(9));
  });

  it('caps a key by its creator role: a developer cannot grant withdrawals:create, a viewer cannot create at all', async () => {
    const s = await seedCompany(t.db);
    const dev = await member(s.companyId, 'developer');
    const capped = await dev.b.call('POST', '/console/api/keys', {
      body: { actions: ['wallets:read', 'withdrawals:create'], walletIds: '*' },
    });
    expect([capped.status, capped.body.code]).toEqual([403, 'role_insufficient']);
    expect(capped.body.message).toMatch(/developer.*withdrawals:create/);
    const own = await dev.b.call('POST', '/console/api/keys', { body: READ });
    expect(own.status).toBe(201);
    const devList = await dev.b.call('GET', '/console/api/keys');
    expect(devList.body.actions.find((a: { action: string }) => a.action === 'withdrawals:create').allowed).toBe(false);

    const viewer = await member(s.companyId, 'viewer');
    const refused = await viewer.b.call('POST', '/console/api/keys', { body: READ });
    expect([refused.status, refused.body.code]).toEqual([403, 'role_insufficient']);
    const viewerList = await viewer.b.call('GET', '/console/api/keys');
    expect(viewerList.body.mayCreate).toBe(false);
    expect(viewerList.body.data.every((k: { canRevoke: boolean }) => !k.canRevoke)).toBe(true);

    // A developer revokes the keys they made, not the owner's; a viewer revokes none.
    const rootId = (await t.db('api_keys').where({ company_id: s.companyId, created_by: s.ownerId }).first('id')).id;
    const notMine = await dev.b.call('POST', `/console/api/keys/${rootId}/revoke`);
    expect([notMine.status, notMine.body.code]).toEqual([403, 'role_insufficient']);
    expect((await viewer.b.call('POST', `/console/api/keys/${own.body.record.id}/revoke`)).status).toBe(403);
    expect(await me(own.body.key)).toBe(200);
    expect((await dev.b.call('POST', `/console/api/keys/${own.body.record.id}/revoke`)).status).toBe(200);
    expect(await me(own.body.key)).toBe(401);
    expect(await me(s.rootKey)).toBe(200);
  });

  it("answers 404 for another company's key, 400 naming the field for bad input, 403 to an API key", async () => {
    const s = await seedCompany(t.db);
    const other = await seedCompany(t.db, 'paid', 'Other');
    const admin = await member(s.companyId, 'admin');
    const otherKey = (await t.db('api_keys').where({ company_id: other.companyId }).first('id')).id;
    const foreign = await admin.b.call('POST', `/console/api/keys/${otherKey}/revoke`);
    expect([foreign.status, foreign.body.code]).toEqual([404, 'not_found']);
    expect(await me(other.rootKey)).toBe(200);
    expect((await admin.b.call('POST', '/console/api/keys/abc/revoke')).status).toBe(404);
    const listed = await admin.b.call('GET', '/console/api/keys');
    expect(listed.body.data.map((k: { id: number }) => k.id)).not.toContain(otherKey);

    const cases: [unknown, RegExp][] = [
      [{ actions: ['wallets:fly'], walletIds: '*' }, /"actions" has an unknown action "wallets:fly"/],
      [{ actions: [], walletIds: '*' }, /"actions" must be a non-empty array/],
      [{ actions: ['wallets:read'] }, /"walletIds" must be "\*"/],
      [{ ...READ, allowIps: ['10.0.0.0/33'] }, /"allowIps" has "10.0.0.0\/33"/],
      [{ ...READ, expiresIn: 'soon' }, /"expiresIn" must be a duration/],
      [{ ...READ, expiresIn: '99999999w' }, /"expiresIn" must be at most 10 years/],
      [{ ...READ, owner: 1 }, /"owner" is not a field/],
      [{ actions: ['wallets:read'], walletIds: [999999] }, /wallet\(s\) 999999 do not belong/],
    ];
    for (const [body, message] of cases) {
      const r = await admin.b.call('POST', '/console/api/keys', { body });
      expect([r.status, r.body.code, r.body.statusCode, r.body.error]).toEqual([400, 'validation_failed', 400, 'Bad Request']);
      expect(r.body.message).toMatch(message);
    }

    const withKey = await call(con.url, 'GET', '/console/api/keys', { key: s.rootKey });
    expect([withKey.status, withKey.body.code]).toEqual([403, 'dashboard_only']);
    const createWithKey = await call(con.url, 'POST', '/console/api/keys', { key: s.rootKey, body: READ });
    expect(createWithKey.status).toBe(403);
  });

  it("a removed member's key is listed as owner_removed, not active, and cannot act (issue 42 §5)", async () => {
    const s = await seedCompany(t.db);
    const owner = await member(s.companyId, 'owner');
    const admin = await member(s.companyId, 'admin');
    const made = await admin.b.call('POST', '/console/api/keys', { body: { name: 'admin script', ...READ } });
    expect(made.status).toBe(201);
    expect(made.body.record.status).toBe('active');
    const wallets = async () => (await call(app.url, 'GET', '/v1/wallets', { key: made.body.key })).status;
    expect(await wallets()).toBe(200);
    expect((await owner.b.call('DELETE', `/console/api/members/${admin.memberId}`)).status).toBe(200);
    const listed = (await owner.b.call('GET', '/console/api/keys')).body.data as { id: number; status: string }[];
    expect(listed.find((k) => k.id === made.body.record.id)?.status).toBe('owner_removed');
    expect(await wallets()).toBe(403);
  });
});
