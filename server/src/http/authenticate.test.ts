import { call, createTestDatabase, keyFor, seedCompany, startTestApp, type TestApp, type TestDatabase } from '@walletd/test-harness';
import { generateApiKey } from '@walletd/core';
import { revokeApiKey, removeMember, setMemberRole, setPlan } from '../index';
import { validator } from '@walletd/schemas';

let t: TestDatabase;
let app: TestApp;

beforeAll(async () => {
  t = await createTestDatabase();
  app = await startTestApp(t.db);
});
afterAll(async () => {
  await app.close();
  await t.drop();
});

describe('authentication', () => {
  it('answers every invalid-key case identically (401)', async () => {
    const s = await seedCompany(t.db);
    const revoked = await keyFor(t.db, s.companyId, { actions: ['wallets:read'] });
    await revokeApiKey(t.db, revoked.id);
    const expired = await keyFor(t.db, s.companyId, { actions: ['wallets:read'], expiresInMs: 1 });
    await new Promise((r) => setTimeout(r, 10));
    const wellFormedUnknown = generateApiKey();
    const typo = `${s.rootKey.slice(0, -1)}${s.rootKey.endsWith('a') ? 'b' : 'a'}`;
    const cases: Record<string, Record<string, string>> = {
      missing: {},
      notBearer: { authorization: `Basic ${s.rootKey}` },
      emptyBearer: { authorization: 'Bearer ' },
      malformed: { authorization: 'Bearer svc_live_short' },
      badChecksum: { authorization: `Bearer ${typo}` },
      unknown: { authorization: `Bearer ${wellFormedUnknown}` },
      revoked: { authorization: `Bearer ${revoked.key}` },
      expired: { authorization: `Bearer ${expired.key}` },
    };
    const answers = new Set<string>();
    for (const [name, headers] of Object.entries(cases)) {
      const r = await call(app.url, 'GET', '/v1/me', { headers });
      expect({ name, status: r.status }).toEqual({ name, status: 401 });
      answers.add(r.text);
    }
    expect([...answers]).toEqual([
      JSON.stringify({ statusCode: 401, error: 'Unauthorized', message: 'Missing or invalid API key', code: 'unauthorized' }),
    ]);
  });

  it("reads the key in the per-IP limiter's own statement: an authenticated GET /me is one database statement (the limit and the key), and writes last_used_at once a minute, not per request", async () => {
    const s = await seedCompany(t.db);
    await call(app.url, 'GET', '/v1/me', { key: s.rootKey }); // the first use records last_used_at
    const statements: string[] = [];
    const onQuery = (q: { sql: string }) => statements.push(q.sql);
    t.db.on('query', onQuery);
    try {
      for (let i = 0; i < 3; i++) expect((await call(app.url, 'GET', '/v1/me', { key: s.rootKey })).status).toBe(200);
    } finally {
      t.db.off('query', onQuery);
    }
    expect(statements).toHaveLength(3);
    expect(statements.every((sql) => /rate_limit_hits/.test(sql) && /api_keys/.test(sql))).toBe(true);
    // A revoked key is refused on the very next request: the key row is read on every request.
    const other = await keyFor(t.db, s.companyId, { actions: ['wallets:read'] });
    expect((await call(app.url, 'GET', '/v1/me', { key: other.key })).status).toBe(200);
    await revokeApiKey(t.db, other.id);
    expect((await call(app.url, 'GET', '/v1/me', { key: other.key })).status).toBe(401);
  });

  it('refuses a key once it expires, though its row (and the context parsed from it) is unchanged', async () => {
    const s = await seedCompany(t.db);
    const soon = await keyFor(t.db, s.companyId, { actions: ['wallets:read'], expiresInMs: 1_500 });
    const first = await call(app.url, 'GET', '/v1/me', { key: soon.key });
    expect(first.status).toBe(200);
    const row = await t.db('api_keys').where({ id: soon.id }).first();
    // The context is the row's, to the millisecond, as the table reads.
    expect(first.body.key.expiresAt).toBe(row.expires_at.toISOString());
    expect(first.body.key.createdAt).toBe(row.created_at.toISOString());
    expect((await call(app.url, 'GET', '/v1/me', { key: soon.key })).status).toBe(200);
    await new Promise((r) => setTimeout(r, Math.max(0, row.expires_at.getTime() - Date.now()) + 50));
    expect((await call(app.url, 'GET', '/v1/me', { key: soon.key })).status).toBe(401);
  });

  it('GET /me describes the key, never its secret, and matches its schema', async () => {
    const s = await seedCompany(t.db);
    const r = await call(app.url, 'GET', '/v1/me', { key: s.rootKey });
    expect(r.status).toBe(200);
    expect(validator('MeResponse')(r.body)).toBe(true);
    expect(r.body.company).toEqual({ id: s.companyId, name: 'Acme', plan: 'paid' });
    expect(r.body.key.walletIds).toBe('*');
    expect(r.text).not.toContain(s.rootKey.slice(13));
  });

  it('enforces the IP allow-list on the socket address, ignoring X-Forwarded-For', async () => {
    const s = await seedCompany(t.db);
    const local = await keyFor(t.db, s.companyId, { actions: ['wallets:read'], allowIps: ['127.0.0.0/8'] });
    const remote = await keyFor(t.db, s.companyId, { actions: ['wallets:read'], allowIps: ['203.0.113.0/24'] });
    expect((await call(app.url, 'GET', '/v1/wallets', { key: local.key })).status).toBe(200);
    const refused = await call(app.url, 'GET', '/v1/wallets', { key: remote.key, headers: { 'x-forwarded-for': '203.0.113.9' } });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ statusCode: 403, error: 'Forbidden', code: 'ip_not_allowed' });
  });

  it("caps a key by its creator's current role", async () => {
    const s = await seedCompany(t.db);
    const dev = await keyFor(t.db, s.companyId, { actions: ['wallets:create', 'wallets:read', 'withdrawals:create'], role: 'developer' });
    const me = await call(app.url, 'GET', '/v1/me', { key: dev.key });
    expect(me.body.key.effectiveActions).toEqual(['wallets:create', 'wallets:read']);
    const created = await call(app.url, 'POST', '/v1/wallets', {
      key: dev.key,
      body: { name: 'w', chain: 'ethereum', network: 'sepolia' },
    });
    expect(created.status).toBe(201);
    // withdrawals:create was granted but a developer may not use it: 403 naming the role.
    const secret = await call(app.url, 'GET', `/v1/wallets/${created.body.id}/secret`, { key: dev.key });
    expect(secret.status).toBe(403);
    expect(secret.body.code).toBe('role_insufficient');
    expect(secret.body.message).toMatch(/role: developer/);

    await setMemberRole(t.db, dev.memberId, 'viewer');
    const demoted = await call(app.url, 'POST', '/v1/wallets', {
      key: dev.key,
      body: { name: 'w2', chain: 'ethereum', network: 'sepolia' },
    });
    expect(demoted.status).toBe(403);
    expect(demoted.body.code).toBe('role_insufficient');
    expect((await call(app.url, 'GET', '/v1/wallets', { key: dev.key })).status).toBe(200);
    // /me answers for the key's row as it is now (its answer is kept per unchanged row, not per key).
    expect((await call(app.url, 'GET', '/v1/me', { key: dev.key })).body.key.effectiveActions).toEqual(['wallets:read']);

    await removeMember(t.db, dev.memberId);
    expect((await call(app.url, 'GET', '/v1/wallets', { key: dev.key })).status).toBe(403);
    expect((await call(app.url, 'GET', '/v1/me', { key: dev.key })).status).toBe(200);
  });

  it('refuses dashboard-only paths to every API key (403)', async () => {
    const s = await seedCompany(t.db);
    for (const [method, path] of [
      ['GET', '/v1/api-keys'],
      ['POST', '/v1/api-keys'],
      ['DELETE', '/v1/api-keys/1'],
      ['POST', '/v1/members'],
      ['PUT', '/v1/password'],
      ['POST', '/v1/encryption-key'],
    ] as const) {
      const r = await call(app.url, method, path, { key: s.rootKey, ...(method === 'GET' || method === 'DELETE' ? {} : { body: {} }) });
      expect({ path, status: r.status, code: r.body.code }).toEqual({ path, status: 403, code: 'dashboard_only' });
    }
  });

  it('answers 402 without a plan, except /me', async () => {
    const s = await seedCompany(t.db, 'none');
    expect((await call(app.url, 'GET', '/v1/me', { key: s.rootKey })).status).toBe(200);
    const r = await call(app.url, 'GET', '/v1/wallets', { key: s.rootKey });
    expect(r.status).toBe(402);
    expect(r.body).toEqual({
      statusCode: 402,
      error: 'Payment Required',
      message: 'The company has no active plan yet',
      code: 'plan_required',
    });
    await setPlan(t.db, s.companyId, 'paid');
    expect((await call(app.url, 'GET', '/v1/wallets', { key: s.rootKey })).status).toBe(200);
  });
});
