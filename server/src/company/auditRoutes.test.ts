import {
  type ConsoleServer,
  type Seeded,
  type TestDatabase,
  createTestDatabase,
  keyFor,
  onboardMember,
  seedCompany,
  startConsole,
} from '@walletd/test-harness';
import { audit } from './audit';

type Member = Awaited<ReturnType<typeof onboardMember>>;

/** The console's audit log: owners and admins, newest first, filters, a keyset cursor, each row saying who, from where, what. */
describe('console audit log API', () => {
  let t: TestDatabase;
  let con: ConsoleServer;
  let s: Seeded;
  let admin: Member;
  let developer: Member;
  let keyId: number;

  beforeAll(async () => {
    t = await createTestDatabase();
    con = await startConsole(t.db);
    s = await seedCompany(t.db);
    admin = await onboardMember(con, t.db, { companyId: s.companyId, email: 'ada@acme.test', role: 'admin' });
    developer = await onboardMember(con, t.db, { companyId: s.companyId, email: 'dev@acme.test', role: 'developer' });
    keyId = (await keyFor(t.db, s.companyId, { actions: ['wallets:read'], createdBy: admin.memberId })).id;
    // What other writers leave: an API key's secret export, walletd itself, and another company's row.
    await audit(t.db, {
      companyId: s.companyId,
      actorType: 'api_key',
      actorId: keyId,
      action: 'wallet.secret.read',
      targetType: 'wallet',
      targetId: 7,
      ip: '10.0.0.9',
    });
    await audit(t.db, {
      companyId: s.companyId,
      actorType: 'system',
      action: 'withdrawal.prepared',
      targetType: 'withdrawal',
      targetId: 3,
    });
    const other = await seedCompany(t.db, 'paid', 'Other');
    await audit(t.db, { companyId: other.companyId, actorType: 'member', actorId: admin.memberId, action: 'policy.created' });
  });
  afterAll(async () => {
    await con.close();
    await t.drop();
  });

  const get = (query: string, m: Member = admin) => m.b.call('GET', `/console/api/audit${query}`);

  it('refuses a developer (403 role_insufficient)', async () => {
    const r = await get('', developer);
    expect([r.status, r.body.code]).toEqual([403, 'role_insufficient']);
  });

  it("lists the company's rows newest first with who (email, API key and its member, walletd), IP, action and target", async () => {
    const r = await get('');
    expect(r.status).toBe(200);
    const rows = r.body.data as { id: number; action: string; actor: { label: string }; ip: string | null; target: unknown }[];
    expect(rows.map((x) => x.id)).toEqual([...rows.map((x) => x.id)].sort((a, b) => b - a));
    expect(rows.map((x) => [x.action, x.actor.label])).toEqual([
      ['withdrawal.prepared', 'walletd'],
      ['wallet.secret.read', `API key #${keyId} (ada@acme.test)`],
      ['member.signed_in', 'dev@acme.test'],
      ['member.signed_out', 'dev@acme.test'],
      ['member.mfa_enrolled', 'dev@acme.test'],
      ['member.signed_in', 'dev@acme.test'],
      ['member.password_set', 'dev@acme.test'],
      ['member.signed_in', 'ada@acme.test'],
      ['member.signed_out', 'ada@acme.test'],
      ['member.mfa_enrolled', 'ada@acme.test'],
      ['member.signed_in', 'ada@acme.test'],
      ['member.password_set', 'ada@acme.test'],
    ]);
    expect(rows[1]).toMatchObject({ ip: '10.0.0.9', target: { type: 'wallet', id: '7' } });
    expect(rows[2]!.ip).toMatch(/127\.0\.0\.1/);
    expect(r.body.nextCursor).toBeNull();
  });

  it('filters by action prefix, member (email or id) and time, and pages with a cursor', async () => {
    const signIns = (await get('?action=member.signed_')).body.data.map((x: { action: string }) => x.action);
    expect(new Set(signIns)).toEqual(new Set(['member.signed_in', 'member.signed_out']));
    // A prefix is a prefix: "_" and "%" are no wildcards.
    expect((await get('?action=member%25')).body.data).toEqual([]);
    const ada = (await get('?member=ADA@acme.test')).body.data;
    expect(ada.length).toBe(5);
    expect((await get(`?member=${admin.memberId}`)).body.data).toEqual(ada);
    expect((await get('?member=nobody@acme.test')).body).toEqual({ data: [], nextCursor: null });
    expect((await get('?from=2999-01-01T00:00:00Z')).body.data).toEqual([]);
    expect((await get('?to=2000-01-01T00:00:00Z')).body.data).toEqual([]);

    const all = (await get('')).body.data.map((x: { id: number }) => x.id);
    const seen: number[] = [];
    let cursor = '';
    for (;;) {
      const page = await get(`?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...page.body.data.map((x: { id: number }) => x.id));
      if (!page.body.nextCursor) break;
      cursor = page.body.nextCursor;
    }
    expect(seen).toEqual(all);
  });

  it('names the field of a bad filter', async () => {
    for (const [query, field] of [
      ['?from=yesterday', 'from'],
      ['?to=2026-13-45', 'to'],
      ['?cursor=abc', 'cursor'],
      ['?limit=0', 'limit'],
      ['?limit=1000', 'limit'],
    ]) {
      const r = await get(query!);
      expect([r.status, r.body.code, r.body.field]).toEqual([400, 'validation_failed', field]);
    }
  });
});
