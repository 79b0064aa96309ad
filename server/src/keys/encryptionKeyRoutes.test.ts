import { createHash } from 'node:crypto';
import { generateSealingKeyPair } from '@walletd/core';
import {
  type ConsoleServer,
  type Seeded,
  type TestDatabase,
  createTestDatabase,
  onboardMember,
  seedCompany,
  startConsole,
} from '@walletd/test-harness';

type Member = Awaited<ReturnType<typeof onboardMember>>;

/** The console's encryption key: every member sees the fingerprint; an owner with a step-up replaces the key; a private key is refused. */
describe('console encryption key API', () => {
  let t: TestDatabase;
  let con: ConsoleServer;
  let s: Seeded;
  let owner: Member;
  let admin: Member;
  let developer: Member;

  beforeAll(async () => {
    t = await createTestDatabase();
    con = await startConsole(t.db);
    s = await seedCompany(t.db);
    owner = await onboardMember(con, t.db, { companyId: s.companyId, email: `owner-${s.companyId}@example.com`, role: 'owner' });
    admin = await onboardMember(con, t.db, { companyId: s.companyId, email: 'ada@acme.test', role: 'admin' });
    developer = await onboardMember(con, t.db, { companyId: s.companyId, email: 'dev@acme.test', role: 'developer' });
  });
  afterAll(async () => {
    await con.close();
    await t.drop();
  });

  const stepUp = async (m: Member) =>
    expect((await m.b.call('POST', '/console/api/step-up', { body: { code: m.code() } })).status).toBe(200);
  const put = (m: Member, publicKeyPem: unknown) => m.b.call('PUT', '/console/api/encryption-key', { body: { publicKeyPem } });
  const stored = () => t.db('companies').where({ id: s.companyId }).first('encryption_public_key');

  it('lets only an owner set it, after a step-up', async () => {
    const pair = generateSealingKeyPair();
    await stepUp(admin);
    const byAdmin = await put(admin, pair.publicKeyPem);
    expect([byAdmin.status, byAdmin.body.code, byAdmin.body.message]).toEqual([
      403,
      'role_insufficient',
      'Your role (admin) may not set the encryption key; only owners may',
    ]);
    con.clock.now += 6 * 60_000;
    const stale = await put(owner, pair.publicKeyPem);
    expect([stale.status, stale.body.code]).toEqual([403, 'step_up_required']);
    expect(await stored()).toEqual({ encryption_public_key: null });
    expect((await developer.b.call('GET', '/console/api/encryption-key')).body).toEqual({
      set: false,
      fingerprint: null,
      setAt: null,
      setBy: null,
    });
  });

  it('refuses a private key in words and stores nothing; refuses what is not an X25519 key', async () => {
    const pair = generateSealingKeyPair();
    await stepUp(owner);
    const priv = await put(owner, pair.privateKeyPem);
    expect([priv.status, priv.body.code, priv.body.field, priv.body.message]).toEqual([
      400,
      'validation_failed',
      'publicKeyPem',
      '"publicKeyPem": this is a PRIVATE key, not a public key: register the public key (the file `walletd secret keygen` wrote with --public-key) and keep the private key offline; it was not stored',
    ]);
    expect((await put(owner, 'not a key')).body.message).toBe('"publicKeyPem": public key is not a PEM-encoded key');
    expect((await put(owner, 42)).body).toMatchObject({ code: 'validation_failed', field: 'publicKeyPem' });
    expect(await stored()).toEqual({ encryption_public_key: null });
    expect(await t.db('audit_log').where({ action: 'encryption_key.set' })).toEqual([]);
  });

  it('sets it, shows its fingerprint (sha256 of the DER public key), when and by whom, and audits it', async () => {
    const pair = generateSealingKeyPair();
    await stepUp(owner);
    const r = await put(owner, pair.publicKeyPem);
    expect(r.status).toBe(200);
    const der = Buffer.from(pair.publicKeyPem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
    const fingerprint = createHash('sha256').update(der).digest('hex');
    expect(r.body).toEqual({
      set: true,
      fingerprint,
      setAt: expect.any(String),
      setBy: { memberId: owner.memberId, email: `owner-${s.companyId}@example.com` },
    });
    expect((await developer.b.call('GET', '/console/api/encryption-key')).body).toEqual(r.body);
    const [row] = await t.db('audit_log').where({ action: 'encryption_key.set' });
    expect(row).toMatchObject({
      company_id: s.companyId,
      actor_type: 'member',
      actor_id: String(owner.memberId),
      target_type: 'company',
      details: { fingerprint, previousFingerprint: null },
    });
    expect(JSON.stringify(row)).not.toContain('PUBLIC KEY');
  });
});
