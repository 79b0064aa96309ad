import { mkdtempSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isValidMnemonic } from '@walletd/core';
import { addMember, setMemberRole } from '@walletd/server';
import { createTestDatabase, freePort, runWalletd, spawnWalletd, type TestDatabase, type WalletdProcess } from '@walletd/test-harness';

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
    const key = admin(
      'key',
      'create',
      '--company',
      String(company.id),
      '--actions',
      'wallets:create,wallets:read,wallets:generate_address',
      '--wallets',
      '*',
      '--expires-in',
      '90d',
    );
    expect(key.key).toMatch(/^svc_live_/);
    expect(key.createdBy).toBe(owner.memberId);
    expect(Date.parse(key.expiresAt) - Date.now()).toBeGreaterThan(89 * 86400e3);
    const listed = admin('key', 'list', '--company', String(company.id));
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
    expect(admin('encryption-key', 'set', '--company', String(company.id), '--public-key', pub).encryptionKeySet).toBe(true);
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
    admin('key', 'revoke', String(key.id));
    expect((await fetch(`${base}/me`, { headers: auth })).status).toBe(401);
  });

  it('refuses bad input with a message and exit code 1, never a stack', () => {
    const bad = runWalletd(['admin', 'key', 'create', '--company', '1', '--actions', 'wallets:fly', '--wallets', '*'], env);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/^walletd: unknown action "wallets:fly"; known actions: /);
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
      /^walletd: the master key from WALLETD_MASTER_KEY \(it wins over any key file\) does not match this database: .*give that key \(WALLETD_MASTER_KEY, or masterKeyFile/,
    );
  });
});
