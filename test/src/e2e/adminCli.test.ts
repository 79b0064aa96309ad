import { mkdtempSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isValidMnemonic } from '@walletd/core';
import { addMember, createApiKey, revokeApiKey, setEncryptionKey, setMemberRole } from '@walletd/server';
import {
  createTestDatabase,
  freePort,
  runWalletd,
  seedCompany,
  spawnWalletd,
  type TestDatabase,
  type WalletdProcess,
} from '@walletd/test-harness';

/** The dashboard stand-in, driven as an operator would: JSON out, then the API with the new key. */
describe('walletd admin and secret commands', () => {
  let t: TestDatabase;
  let env: Record<string, string>;
  let server: WalletdProcess;
  let base: string;
  const dir = mkdtempSync(join(tmpdir(), 'walletd-admin-'));

  beforeAll(async () => {
    t = await createTestDatabase();
    const port = await freePort();
    env = {
      DATABASE_URL: t.url,
      WALLETD_MASTER_KEY: randomBytes(32).toString('hex'),
      WALLETD_BOOTSTRAP: '0',
      WALLETD_DEVNET: '0',
      PORT: String(port),
      HOST: '127.0.0.1',
      WALLETD_DATA_DIR: dir,
    };
    base = `http://127.0.0.1:${port}/v1`;
    server = spawnWalletd(['serve', '--roles', 'api'], env);
    await server.waitFor(/API listening/);
  });
  afterAll(async () => {
    server.child.kill('SIGTERM');
    await server.exited;
    await t.drop();
  });

  const admin = (...args: string[]) => {
    const r = runWalletd(['admin', ...args], env);
    if (r.status !== 0) throw new Error(`walletd admin ${args.join(' ')} failed: ${r.stderr}`);
    return r.json;
  };

  it('creates a company, members and a scoped key, then the key works and is revocable', async () => {
    const company = admin('company', 'create', '--name', 'Globex', '--plan', 'paid');
    expect(company).toMatchObject({ name: 'Globex', plan: 'paid', encryptionKeySet: false });
    // The operator gives the new company its owner (a one-time console link); people are managed in the console.
    const owner = admin('member', 'invite', '--company', String(company.id), '--email', 'ceo@globex.test');
    expect(owner).toMatchObject({ role: 'owner', purpose: 'invitation' });
    // Keys are made by a member in the console now; the CLI only lists them.
    const { record, key: secret } = await createApiKey(t.db, {
      companyId: company.id,
      createdBy: owner.memberId,
      actions: ['wallets:create', 'wallets:read', 'wallets:generate_address'],
      walletIds: null,
      expiresInMs: 90 * 86400e3,
    });
    const key = { ...record, key: secret };
    expect(key.key).toMatch(/^svc_live_/);
    expect(key.createdBy).toBe(owner.memberId);
    expect(Date.parse(key.expiresAt as string) - Date.now()).toBeGreaterThan(89 * 86400e3);
    const listed = admin('key', 'list', '--company', String(company.id));
    expect(listed.map((k: { id: number }) => k.id)).toEqual([key.id]);
    expect(JSON.stringify(listed)).not.toContain(key.key);

    const auth = { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' };
    const w = await fetch(`${base}/wallets`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ name: 'ops', chain: 'solana', network: 'mainnet' }),
    });
    expect(w.status).toBe(201);
    const wallet = (await w.json()) as { id: number };

    // Encryption key: keygen offline, register, read the sealed secret, open it offline.
    const priv = join(dir, 'company.key');
    const pub = join(dir, 'company.pub');
    expect(runWalletd(['secret', 'keygen', '--private-key', priv, '--public-key', pub]).status).toBe(0);
    // Registered as the console does it (an owner's page; the CLI no longer sets it).
    expect((await setEncryptionKey(t.db, company.id, readFileSync(pub, 'utf8'))).encryptionKeySet).toBe(true);
    const sealed = await fetch(`${base}/wallets/${wallet.id}/secret`, { headers: auth });
    expect(sealed.status).toBe(200);
    const opened = runWalletd(['secret', 'open', '--private-key', priv], {}, await sealed.text());
    expect(opened.status).toBe(0);
    expect(isValidMnemonic(opened.stdout.trim())).toBe(true);
    expect(readFileSync(priv, 'utf8')).toContain('PRIVATE KEY');

    // Role changes (made in the console, here through the same service) and revocation take effect
    // on the next request. A second owner first: the last owner is never demoted.
    await addMember(t.db, { companyId: company.id, email: 'cfo@globex.test', role: 'owner' });
    await setMemberRole(t.db, owner.memberId, 'viewer');
    const demoted = await fetch(`${base}/wallets`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ name: 'x', chain: 'solana', network: 'mainnet' }),
    });
    expect(demoted.status).toBe(403);
    await revokeApiKey(t.db, key.id);
    expect((await fetch(`${base}/me`, { headers: auth })).status).toBe(401);
  });

  it('no longer creates or revokes API keys: exit 2 pointing to the console, nothing written', async () => {
    const keyIds = () => t.db('api_keys').orderBy('id').pluck('id');
    const before = await keyIds();
    const create = runWalletd(['admin', 'key', 'create', '--company', '1', '--actions', '*', '--wallets', '*'], env);
    expect(create.status).toBe(2);
    expect(create.stdout).toBe('');
    expect(create.stderr).toMatch(
      /^walletd admin key create was removed: the CLI authenticates nobody, so API keys are created in the console/,
    );
    expect(create.stderr).toContain('POST /console/api/keys');
    expect(await keyIds()).toEqual(before);
    const seeded = await seedCompany(t.db, 'paid', 'Initech');
    const { id } = await t.db('api_keys').where({ company_id: seeded.companyId }).first('id');
    const revoke = runWalletd(['admin', 'key', 'revoke', String(id)], env);
    expect(revoke.status).toBe(2);
    expect(revoke.stderr).toMatch(/^walletd admin key revoke was removed: .*POST \/console\/api\/keys\/ID\/revoke/);
    expect(await t.db('api_keys').where({ id }).first('revoked_at')).toEqual({ revoked_at: null });
    expect((await fetch(`${base}/me`, { headers: { authorization: `Bearer ${seeded.rootKey}` } })).status).toBe(200);
  });

  it('refuses bad input with a message and exit code 1, never a stack', () => {
    const bad = runWalletd(['admin', 'key', 'list', '--company', 'one'], env);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('--company must be a positive integer, got "one"');
    expect(bad.stderr).not.toMatch(/\n\s+at /);
    const plan = runWalletd(['admin', 'plan', 'set', '--company', '1', '--plan', 'gold'], env);
    expect(plan.stderr.trim()).toBe('walletd: plan must be none, free or paid, not "gold"');
    const missing = runWalletd(['admin', 'company', 'create'], env);
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toContain("required option '--name <name>' not specified");
  });

  it('refuses to start with a master key other than the database was set up with', () => {
    const r = runWalletd(['migrate'], { ...env, WALLETD_MASTER_KEY: randomBytes(32).toString('hex') });
    expect(r.status).toBe(1);
    // Names where the key came from, that it does not match the database, and what to give instead.
    expect(r.stderr).toMatch(
      /^walletd: the master key from WALLETD_MASTER_KEY \(it wins over any key file\) does not match this database: .*give that key \(WALLETD_MASTER_KEY, masterKeyFile/,
    );
  });
});
