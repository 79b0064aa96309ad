import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MasterKey, sealTo } from '@walletd/core';
import { createWallet, setEncryptionKey } from '@walletd/server';
import { createTestDatabase, runWalletd, type TestDatabase, shippedPlugins } from '@walletd/test-harness';

/** What the key commands say when given the wrong file, through the real walletd process. */
describe('walletd key files and company list: messages in words', () => {
  let t: TestDatabase;
  let env: Record<string, string>;
  const masterKey = randomBytes(32);
  const dir = mkdtempSync(join(tmpdir(), 'walletd-words-'));
  const priv = join(dir, 'company.key');
  const pub = join(dir, 'company.pub');

  beforeAll(async () => {
    t = await createTestDatabase();
    env = {
      DATABASE_URL: t.url,
      WALLETD_MASTER_KEY: masterKey.toString('hex'),
      WALLETD_BOOTSTRAP: '0',
      WALLETD_DEVNET: '0',
      WALLETD_DATA_DIR: dir,
      LOG_LEVEL: 'warn',
    };
    expect(runWalletd(['secret', 'keygen', '--private-key', priv, '--public-key', pub]).status).toBe(0);
  });
  afterAll(async () => {
    await t.drop();
  });

  const walletd = (...args: string[]) => runWalletd(args, env);
  const noStack = (stderr: string) => expect(stderr).not.toMatch(/\n\s+at |error:[0-9A-F]{8}:|^walletd: E[A-Z]+:/);

  // Refusing a private key pasted as the company's key is now the console's (server/src/keys/encryptionKeyRoutes.test.ts).
  it('no longer sets the encryption key (an owner does, in the console) and stores nothing', async () => {
    const company = walletd('admin', 'company', 'create', '--name', 'Hooli', '--plan', 'paid').json;
    const r = walletd('admin', 'encryption-key', 'set', '--company', String(company.id), '--public-key', pub);
    expect([r.status, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toBe(
      "walletd admin encryption-key set was removed: the CLI authenticates nobody, so an owner registers the public key in the console's " +
        'Encryption key page (paste the PEM that `walletd secret keygen` wrote with --public-key), with a fresh authenticator code\n',
    );
    const row = await t.db('companies').where({ id: company.id }).first('encryption_public_key', 'encryption_key_set_at');
    expect(row).toEqual({ encryption_public_key: null, encryption_key_set_at: null });
    // Set as an owner's console page sets it (the company list below shows it).
    await setEncryptionKey(t.db, company.id, readFileSync(pub, 'utf8'));
  });

  it('names the file and what is wrong when a key file is not a key, or is missing', () => {
    const junk = join(dir, 'junk.pem');
    writeFileSync(junk, 'not a key\n');
    const missing = runWalletd(['secret', 'open', '--private-key', join(dir, 'nope.key'), '--wallet', '1'], {}, 'x');
    expect(missing.stderr).toBe(`walletd: the private key ${join(dir, 'nope.key')} does not exist (or its folder does not)\n`);

    const sealed = sealTo(readFileSync(pub, 'utf8'), Buffer.from('words'), 'wallet:1');
    const open = (key: string) => runWalletd(['secret', 'open', '--private-key', key, '--wallet', '1'], {}, sealed);
    // Was "error:1E08010C:DECODER routines::unsupported".
    const junkKey = open(junk);
    expect(junkKey.stderr).toBe(`walletd: the private key ${junk}: the private key cannot be read: it is not a PEM-encoded key\n`);
    const pubKey = open(pub);
    expect(pubKey.stderr).toMatch(
      new RegExp(`^walletd: the private key ${pub}: this is a public key: opening a sealed secret needs the private key`),
    );
    const dirKey = open(dir);
    expect(dirKey.stderr).toBe(`walletd: the private key ${dir} is a folder; give the path of a file\n`);
    for (const r of [missing, junkKey, pubKey, dirKey]) {
      expect(r.status).toBe(1);
      noStack(r.stderr);
    }
    expect(open(priv).stdout).toBe('words\n');
  });

  it('says which key does not open a sealed secret, instead of "unable to authenticate data"', () => {
    const other = join(dir, 'other');
    mkdirSync(other);
    expect(runWalletd(['secret', 'keygen', '--private-key', join(other, 'k'), '--public-key', join(other, 'p')]).status).toBe(0);
    const sealed = sealTo(readFileSync(pub, 'utf8'), Buffer.from('words'), 'wallet:7');
    const withOther = runWalletd(['secret', 'open', '--private-key', join(other, 'k'), '--wallet', '7'], {}, sealed);
    const otherWallet = runWalletd(['secret', 'open', '--private-key', priv, '--wallet', '8'], {}, sealed);
    for (const [r, context] of [
      [withOther, 'wallet:7'],
      [otherWallet, 'wallet:8'],
    ] as const) {
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(
        new RegExp(`^walletd: this private key does not open the sealed secret of ${context}: it was sealed to another public key`),
      );
      noStack(r.stderr);
    }
    expect(withOther.stderr).toContain(`(private key ${join(other, 'k')})`);
  });

  it('refuses to overwrite a key with keygen, naming the file, and leaves no half pair behind', () => {
    const fresh = join(dir, 'fresh.key');
    // Was "EEXIST: file already exists, open '…company.pub'", after writing fresh.key anyway.
    const r = runWalletd(['secret', 'keygen', '--private-key', fresh, '--public-key', pub]);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      `walletd: the public key file ${pub} already exists; walletd never overwrites a key: give another path, or move the old file away first\n`,
    );
    expect(existsSync(fresh)).toBe(false);
    const noFolder = runWalletd(['secret', 'keygen', '--private-key', join(dir, 'a.key'), '--public-key', join(dir, 'no', 'a.pub')]);
    expect(noFolder.stderr).toBe(`walletd: the public key file ${join(dir, 'no', 'a.pub')} does not exist (or its folder does not)\n`);
    expect(existsSync(join(dir, 'a.key'))).toBe(false);
  });

  it('names the master key file and what is wrong with it', () => {
    const asFile = (file: string) =>
      runWalletd(['admin', 'company', 'list'], { ...env, WALLETD_MASTER_KEY: '', WALLETD_MASTER_KEY_FILE: file });
    const folder = asFile(dir);
    expect(folder.stderr).toBe(`walletd: the master key file ${dir} is a folder; give the path of a file\n`);
    const short = join(dir, 'short.key');
    writeFileSync(short, 'abcd\n');
    expect(asFile(short).stderr).toBe(`walletd: master key from ${short} must be 32 bytes, as 64 hex or 44 base64 characters\n`);
    const other = join(dir, 'other.key');
    writeFileSync(other, `${randomBytes(32).toString('hex')}\n`);
    const mismatch = asFile(other);
    expect(mismatch.stderr).toMatch(new RegExp(`^walletd: the master key from the key file ${other} does not match this database: `));
    for (const r of [folder, mismatch]) expect(r.status).toBe(1);
  });

  it('lists every company with its plan, creation time and wallets not deleted', async () => {
    const before = walletd('admin', 'company', 'list');
    expect(before.status).toBe(0);
    const hooli = before.json.find((c: { name: string }) => c.name === 'Hooli');
    const made = walletd('admin', 'company', 'create', '--name', 'Pied Piper', '--plan', 'free').json;
    const key = new MasterKey(masterKey);
    const wallet = (companyId: number, name: string) =>
      createWallet(t.db, key, { companyId, name, chain: 'solana', network: 'devnet' }, shippedPlugins());
    await wallet(made.id, 'kept');
    const gone = await wallet(made.id, 'deleted');
    await t.db('wallets').where({ id: gone.id }).update({ deleted_at: t.db.fn.now() });
    await wallet(hooli.id, 'other company');

    const list = walletd('admin', 'company', 'list');
    expect([list.status, list.stderr]).toEqual([0, '']);
    expect(list.json.map((c: { id: number }) => c.id)).toEqual([...before.json.map((c: { id: number }) => c.id), made.id]);
    expect(list.json.at(-1)).toEqual({
      id: made.id,
      name: 'Pied Piper',
      plan: 'free',
      encryptionKeySet: false,
      createdAt: made.createdAt,
      wallets: 1,
    });
    expect(list.json.find((c: { id: number }) => c.id === hooli.id)).toMatchObject({
      plan: 'paid',
      encryptionKeySet: true,
      wallets: hooli.wallets + 1,
    });
  });
});
