import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isValidMnemonic, MasterKey } from '@walletd/core';
import { setEncryptionKey } from '@walletd/server';
import {
  call,
  createTestDatabase,
  describeWithSoftHsm,
  freePort,
  newSoftHsmToken,
  runWalletd,
  runWalletdAsync,
  SOFTHSM_MODULE,
  seedCompany,
  softHsmConf,
  spawnWalletd,
  type SoftHsmToken,
  type TestDatabase,
  type WalletdProcess,
} from '@walletd/test-harness';

/**
 * Issue 45 §1–2 with the real process and a real SoftHSM2 token: `serve` keyed by an AES key that
 * never leaves the token, the refusals a start can meet, and a rotation from a key file into the
 * token killed half-way and resumed.
 */
describeWithSoftHsm('walletd with its master key in a PKCS#11 token (SoftHSM2)', () => {
  let t: TestDatabase;
  let token: SoftHsmToken;
  let dir: string;
  let proc: WalletdProcess | undefined;
  const pkcs11 = (over: Record<string, unknown> = {}) => ({
    module: SOFTHSM_MODULE,
    tokenLabel: token.label,
    pinEnv: 'WALLETD_TEST_HSM_PIN',
    keyLabel: 'walletd-master',
    ...over,
  });
  const writeConfig = (name: string, masterKey: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
    const file = join(dir, name);
    writeFileSync(
      file,
      JSON.stringify({
        dataDir: join(dir, 'data'),
        devnet: { enabled: false },
        bootstrap: false,
        // Addresses are derived offline; the API role never asks this node.
        chains: [{ chain: 'ethereum', network: 'sepolia', rpcUrl: 'http://127.0.0.1:9' }],
        masterKey,
        ...extra,
      }),
    );
    return file;
  };
  const env = (pin = token.pin) => ({ DATABASE_URL: t.url, SOFTHSM2_CONF: token.conf, WALLETD_TEST_HSM_PIN: pin, WALLETD_MASTER_KEY: '' });

  beforeEach(async () => {
    t = await createTestDatabase();
    dir = mkdtempSync(join(tmpdir(), 'walletd-keys-'));
    token = newSoftHsmToken('walletd', softHsmConf());
  });
  afterEach(async () => {
    if (proc && proc.child.exitCode === null) {
      proc.child.kill('SIGTERM');
      await proc.exited;
    }
    proc = undefined;
    await t.drop();
  });

  async function serve(config: string, pin?: string): Promise<string> {
    // A port the kernel says is free now: a random one could be another test's (this one failed
    // once with "port … is in use" while the suite ran in parallel).
    const port = await freePort();
    proc = spawnWalletd(['serve', '--roles', 'api', '--config', config], { ...env(pin), PORT: String(port), HOST: '127.0.0.1' });
    await proc.waitFor(/API listening/);
    return `http://127.0.0.1:${port}`;
  }

  it('init-token, then serve: wallets and addresses through the token, no key file anywhere, the unwraps counted', async () => {
    const config = writeConfig('walletd.json', { pkcs11: pkcs11() });
    const init = await runWalletdAsync(['keys', 'init-token', '--config', config], env());
    expect(init.stderr).toBe('');
    expect(init.stdout).toContain(`created the key "walletd-master" in the PKCS#11 token "${token.label}"`);
    const again = await runWalletdAsync(['keys', 'init-token', '--config', config], env());
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('the token already holds a key labelled "walletd-master"');

    const s = await seedCompany(t.db);
    const base = await serve(config);
    const wallet = await call(base, 'POST', '/v1/wallets', {
      key: s.rootKey,
      body: { name: 'hot', chain: 'ethereum', network: 'sepolia' },
    });
    expect(wallet.status).toBe(201);
    const address = await call(base, 'POST', `/v1/wallets/${wallet.body.id}/addresses`, { key: s.rootKey, body: {} });
    expect(address.status).toBe(201);
    expect(address.body.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    const metrics = (await call(base, 'GET', '/metrics')).text;
    expect(Number(metrics.match(/^walletd_master_key_unwraps_total\{backend="pkcs11"\} (\d+)$/m)?.[1])).toBeGreaterThanOrEqual(1);
    const row = await t.db('wallets').where({ id: wallet.body.id }).first();
    const fingerprint = (await t.db('settings').where({ key: 'master_key_fingerprint' }).first()).value as string;
    expect(row.secret_envelope.kid).toBe(fingerprint.slice(0, 16));
    // A secret export: opened in the token, sealed to the company's key, opened offline.
    // The company's own pair, kept outside the service's folders.
    const offline = mkdtempSync(join(tmpdir(), 'walletd-company-'));
    const priv = join(offline, 'company.pem');
    const pub = join(offline, 'company.pub');
    expect((await runWalletdAsync(['secret', 'keygen', '--private-key', priv, '--public-key', pub])).status).toBe(0);
    await setEncryptionKey(t.db, s.companyId, readFileSync(pub, 'utf8'));
    const sealed = await call(base, 'GET', `/v1/wallets/${wallet.body.id}/secret`, { key: s.rootKey });
    expect(sealed.status).toBe(200);
    const opened = runWalletd(['secret', 'open', '--private-key', priv], {}, sealed.text);
    expect(opened.status).toBe(0);
    expect(isValidMnemonic(opened.stdout.trim())).toBe(true);
    // The file form would have written <dataDir>/master.key on this first start.
    const files = readdirSync(dir, { recursive: true }) as string[];
    expect(files.filter((f) => f.endsWith('.key'))).toEqual([]);
  });

  it('refuses to start with one line naming the cause: wrong PIN, no such token, no such key, PIN unset, a key the database does not know', async () => {
    const good = writeConfig('good.json', { pkcs11: pkcs11() });
    expect((await runWalletdAsync(['keys', 'init-token', '--config', good], env())).status).toBe(0);
    expect((await runWalletdAsync(['migrate', '--config', good], env())).status).toBe(0);
    const refusal = async (config: string, pin?: string) => {
      const r = await runWalletdAsync(['serve', '--roles', 'api', '--config', config], { ...env(pin), PORT: '0' });
      expect(r.status).toBe(1);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      return r.stderr.split('\n').find((l) => l.startsWith('walletd: '));
    };
    expect(await refusal(good, '9999')).toBe(
      'walletd: masterKey.pkcs11: the token refused the PIN (CKR_PIN_INCORRECT); check pinEnv/pinFile',
    );
    expect(await refusal(writeConfig('t.json', { pkcs11: pkcs11({ tokenLabel: 'absent' }) }))).toBe(
      'walletd: masterKey.pkcs11: no token labelled "absent" is present',
    );
    expect(await refusal(writeConfig('k.json', { pkcs11: pkcs11({ keyLabel: 'other' }) }))).toContain(
      'masterKey.pkcs11: the token holds no secret key labelled "other" (create it with walletd keys init-token)',
    );
    expect(await refusal(writeConfig('p.json', { pkcs11: pkcs11({ pinEnv: 'WALLETD_TEST_NO_SUCH_PIN' }) }))).toBe(
      'walletd: masterKey.pkcs11: the environment variable WALLETD_TEST_NO_SUCH_PIN (pinEnv) is not set',
    );
    // Another key in the same token: the database was set up with the first one.
    const other = writeConfig('o.json', { pkcs11: pkcs11({ keyLabel: 'other' }) });
    expect((await runWalletdAsync(['keys', 'init-token', '--config', other], env())).status).toBe(0);
    expect(await refusal(other)).toMatch(
      /^walletd: the master key from the key "other" in the PKCS#11 token "walletd" does not match this database: /,
    );
  });

  it('rotates from a key file into the token: killed half-way, resumed, verified; then the token alone serves and the file alone is refused', async () => {
    const fileKey = randomBytes(32);
    const keyFile = join(dir, 'master.key');
    writeFileSync(keyFile, `${fileKey.toString('hex')}\n`, { mode: 0o600 });
    const before = writeConfig('before.json', { pkcs11: null }, { masterKeyFile: keyFile });
    const s = await seedCompany(t.db);
    let base = await serve(before);
    const wallets: number[] = [];
    for (let i = 0; i < 12; i++) {
      const w = await call(base, 'POST', '/v1/wallets', { key: s.rootKey, body: { name: `w${i}`, chain: 'ethereum', network: 'sepolia' } });
      wallets.push(w.body.id as number);
    }
    const hook = await call(base, 'POST', '/v1/webhooks', {
      key: s.rootKey,
      body: { type: 'api', config: { url: 'https://example.com/hook' }, events: ['*'] },
    });
    expect(hook.status).toBe(201);
    const totp = new MasterKey(fileKey).seal(Buffer.from('JBSWY3DPEHPK3PXP'), `member-totp:${s.ownerId}`);
    await t.db('member_credentials').insert({ member_id: s.ownerId, totp_envelope: JSON.stringify(totp) });
    proc?.child.kill('SIGTERM');
    await proc?.exited;

    const during = writeConfig('during.json', { pkcs11: pkcs11(), previous: { file: keyFile } });
    expect((await runWalletdAsync(['keys', 'init-token', '--config', during], env())).status).toBe(0);
    // Killed after a few one-envelope batches: the rows it re-wrapped stay re-wrapped.
    const first = spawnWalletd(['keys', 'rotate', '--batch-size', '1', '--config', during], env());
    await first.waitFor(/wallets: 3\/12 re-wrapped/);
    first.child.kill('SIGKILL');
    await first.exited;
    const kids = async () => (await t.db('wallets').select('secret_envelope')).map((r) => r.secret_envelope.kid as string);
    const moved = (await kids()).filter((k) => k !== new MasterKey(fileKey).id).length;
    expect(moved).toBeGreaterThanOrEqual(3);
    expect(moved).toBeLessThan(12);

    // While the rotation is half done, serve holds both keys: every wallet still derives addresses.
    base = await serve(during);
    for (const id of wallets) {
      const a = await call(base, 'POST', `/v1/wallets/${id}/addresses`, { key: s.rootKey, body: {} });
      expect(a.status).toBe(201);
    }
    const unfinished = await runWalletdAsync(['keys', 'verify', '--config', during], env());
    expect(unfinished.status).toBe(1);
    expect(unfinished.json.failed).toBe(12 - moved + 2);

    const resumed = await runWalletdAsync(['keys', 'rotate', '--config', during], env());
    expect(resumed.status).toBe(0);
    expect(resumed.json).toEqual({ rewrapped: { wallets: 12 - moved, webhooks: 1, member_credentials: 1 }, current: 14 });
    const verified = await runWalletdAsync(['keys', 'verify', '--config', during], env());
    expect(verified.status).toBe(0);
    expect(verified.json).toEqual({ opened: 14, failed: 0, firstFailed: [] });
    proc?.child.kill('SIGTERM');
    await proc?.exited;

    const after = writeConfig('after.json', { pkcs11: pkcs11() });
    base = await serve(after);
    const a = await call(base, 'POST', `/v1/wallets/${wallets[11]}/addresses`, { key: s.rootKey, body: {} });
    expect(a.status).toBe(201);
    proc?.child.kill('SIGTERM');
    await proc?.exited;
    const fileOnly = await runWalletdAsync(['serve', '--roles', 'api', '--config', before], { ...env(), PORT: '0' });
    expect(fileOnly.status).toBe(1);
    expect(fileOnly.stderr).toContain(`the master key from the key file ${keyFile} does not match this database`);
    const audit = await t.db('audit_log').where('action', 'like', 'master_key.%').orderBy('id').pluck('action');
    expect(audit).toEqual([
      'master_key.rotate_started',
      'master_key.verified',
      'master_key.rotate_started',
      'master_key.rotated',
      'master_key.verified',
    ]);
    expect(existsSync(keyFile)).toBe(true);
  });
});
