import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { isValidMnemonic } from '@walletd/core';
import { setEncryptionKey } from '@walletd/server';
import {
  createTestDatabase,
  describeWithSoftHsm,
  litecoindAvailable,
  newSoftHsmToken,
  type PlaygroundRun,
  playgroundLoop,
  runWalletd,
  runWalletdAsync,
  SOFTHSM_MODULE,
  softHsmConf,
  type TestDatabase,
} from '@walletd/test-harness';

const metric = (text: string, name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1] ?? Number.NaN);

/**
 * Issue 45's CI test for §1: a fresh `walletd serve` keyed by an AES key that never leaves a
 * SoftHSM2 token (no key file anywhere), every local chain of the devnet running beside it, a
 * wallet and an address on each, an EVM deposit and a withdrawal signed and confirmed, a secret
 * export opened offline with the company's key, and the token's unwraps counted in /metrics.
 */
describeWithSoftHsm('walletd serve on the devnet with its master key in a PKCS#11 token', () => {
  let t: TestDatabase;
  let r: PlaygroundRun | undefined;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(async () => {
    r?.proc.child.kill('SIGTERM');
    await r?.proc.exited;
    await r?.receiver.close();
    await t?.drop();
  });

  it('serves wallets on every local chain, signs and confirms a withdrawal, exports a secret, and writes no key file', async () => {
    const token = newSoftHsmToken('walletd-serve', softHsmConf());
    const masterKey = {
      pkcs11: { module: SOFTHSM_MODULE, tokenLabel: token.label, pinEnv: 'WALLETD_TEST_HSM_PIN', keyLabel: 'walletd-master' },
    };
    const env = { SOFTHSM2_CONF: token.conf, WALLETD_TEST_HSM_PIN: token.pin, WALLETD_MASTER_KEY: '' };
    const initConfig = join(mkdtempSync(join(tmpdir(), 'walletd-init-')), 'walletd.json');
    writeFileSync(initConfig, JSON.stringify({ masterKey }));
    const init = await runWalletdAsync(['keys', 'init-token', '--config', initConfig], env);
    expect([init.status, init.stderr]).toEqual([0, '']);

    const utxo = litecoindAvailable() ? ['bitcoin', 'dogecoin'] : [];
    r = await playgroundLoop(t, {
      devnet: 'evm',
      plugin: '@walletd/plugin-evm',
      chain: 'ethereum',
      network: 'devnet',
      coin: 'ETH',
      alsoDevnets: ['solana', 'ton', 'polkadot', ...utxo],
      config: {
        masterKey,
        plugins: ['evm', 'solana', 'ton', 'polkadot', 'utxo'].map((p) => `@walletd/plugin-${p}`),
      },
      env,
    });
    expect(r.withdrawal).toMatchObject({ status: 'confirmed', amount: '0.5' });
    expect(r.balances.ETH).toBe('2');
    const signed = await t
      .db('audit_log')
      .where({ action: 'withdrawal.signed', target_id: String(r.withdrawal.id) })
      .first();
    expect(signed.details).toMatchObject({ txHash: r.withdrawal.txHash });

    // A wallet and an address on every other local chain, their secrets sealed under the token's key.
    const others: [string, string][] = [
      ['solana', 'localnet'],
      ['ton', 'localnet'],
      ['polkadot', 'localnet'],
      ...utxo.map((c): [string, string] => [c, 'regtest']),
    ];
    for (const [chain, network] of others) {
      const w = await r.api('POST', '/wallets', { name: `hsm-${chain}`, chain, network });
      expect([chain, w.status]).toEqual([chain, 201]);
      const a = await r.api('POST', `/wallets/${w.body.id}/addresses`);
      expect([chain, a.status]).toEqual([chain, 201]);
    }
    const fingerprint = (await t.db('settings').where({ key: 'master_key_fingerprint' }).first()).value as string;
    const kids = await t.db('wallets').pluck('secret_envelope');
    expect(kids.length).toBe(2 + others.length);
    for (const e of kids) expect(e.kid).toBe(fingerprint.slice(0, 16));

    // The secret export: unwrapped in the token, sealed to the company's key, opened offline.
    const offline = mkdtempSync(join(tmpdir(), 'walletd-company-'));
    const priv = join(offline, 'company.pem');
    const pub = join(offline, 'company.pub');
    expect((await runWalletdAsync(['secret', 'keygen', '--private-key', priv, '--public-key', pub])).status).toBe(0);
    const companyId = (await t.db('wallets').where({ id: r.walletId }).first('company_id')).company_id as number;
    await setEncryptionKey(t.db, companyId, readFileSync(pub, 'utf8'));
    const sealed = await r.api('GET', `/wallets/${r.walletId}/secret`);
    expect(sealed.status).toBe(200);
    const opened = runWalletd(['secret', 'open', '--private-key', priv], {}, sealed.text);
    expect(opened.status).toBe(0);
    expect(isValidMnemonic(opened.stdout.trim())).toBe(true);

    // Every data key was unwrapped by the token: addresses, the withdrawal's signature, the export.
    const metrics = await (await fetch(`http://127.0.0.1:${r.env.PORT}/metrics`)).text();
    const unwraps = metric(metrics, 'walletd_master_key_unwraps_total\\{backend="pkcs11"\\}');
    // An address per wallet, the withdrawal's signature and the export: each opened the wallet's data key.
    expect(unwraps).toBeGreaterThanOrEqual(2 + others.length + 2);
    // The file form would have written <dataDir>/master.key on this first start.
    const files = readdirSync(dirname(r.dataDir), { recursive: true }) as string[];
    expect(files.filter((f) => f.endsWith('.key'))).toEqual([]);
  }, 420_000);
});
