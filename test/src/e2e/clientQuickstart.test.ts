import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addPolicy } from '@walletd/server';
import {
  call,
  createTestDatabase,
  freePort,
  runWalletdAsync,
  seedCompany,
  spawnWalletd,
  type TestDatabase,
  type WalletdProcess,
} from '@walletd/test-harness';

const QUICKSTART = join(__dirname, '..', '..', '..', 'client', 'examples', 'quickstart.js');

/**
 * client/examples/quickstart.js, as its README says to run it, against a real `walletd serve` on
 * the EVM devnet (anvil) with one value-moving write per key and endpoint a minute: the wallet and
 * address, the devnet deposit read from the event feed, a payout prepared and broadcast and seen
 * confirmed in the feed, the second prepare answered 429 and retried after Retry-After with the
 * same idempotency key, then refused by an approval policy, read as a typed error naming it.
 */
describe('@walletd/client quickstart against walletd serve on the devnet', () => {
  let t: TestDatabase;
  let proc: WalletdProcess;

  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(async () => {
    proc?.child.kill('SIGTERM');
    await proc?.exited;
    await t.drop();
  });

  it('runs end to end: deposit in the feed, payout confirmed, a 429 retried, a policy refusal typed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'walletd-client-'));
    const config = join(dir, 'walletd.json');
    writeFileSync(
      config,
      JSON.stringify({
        bootstrap: false,
        dataDir: join(dir, '.walletd'),
        devnet: { chains: ['evm'], ports: { evm: await freePort() } },
        rateLimit: { writesPerKeyPerMinute: 1 },
      }),
    );
    const port = await freePort();
    const env = { DATABASE_URL: t.url, WALLETD_MASTER_KEY: 'ab'.repeat(32), PORT: String(port), HOST: '127.0.0.1' };
    proc = spawnWalletd(['serve', '--config', config, '--roles', 'api,indexer'], env);
    await proc.waitFor(/API listening/, 180_000);
    const s = await seedCompany(t.db, 'paid', 'Client quickstart');
    const policy = await addPolicy(t.db, {
      companyId: s.companyId,
      name: 'two sign-offs above 1 ETH',
      kind: 'approval_above',
      walletIds: null,
      assetKey: 'ethereum:devnet:eth',
      threshold: 10n ** 18n,
      approvals: 2,
    });

    const example = spawn(process.execPath, [QUICKSTART], {
      env: { ...process.env, WALLETD_URL: `http://127.0.0.1:${port}`, WALLETD_API_KEY: s.rootKey },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    example.stdout.on('data', (c) => {
      out += c;
    });
    example.stderr.on('data', (c) => {
      out += c;
    });
    const exited = new Promise<number | null>((resolve) => example.on('close', resolve));
    const address = await new Promise<string>((resolve, reject) => {
      const check = () => {
        const m = out.match(/^ADDRESS (0x[0-9a-fA-F]{40})$/m);
        if (m) resolve(m[1] as string);
      };
      example.stdout.on('data', check);
      exited.then(() => reject(new Error(`the quickstart exited before printing its address:\n${out}`)));
    });
    const fund = await runWalletdAsync(['dev', 'fund', '--config', config, '--chain', 'evm', '--address', address, '--amount', '2'], env);
    expect(fund.status).toBe(0);

    expect({ code: await exited, out }).toMatchObject({ code: 0 });
    const lines = out.split('\n');
    expect(lines).toContainEqual(expect.stringMatching(/^DEPOSIT 2 ETH confirmed \(event /));
    const sent = out.match(/^WITHDRAWAL (\d+) broadcast 0x[0-9a-f]{64}$/m);
    expect(sent).not.toBeNull();
    expect(lines).toContain(`WITHDRAWAL ${sent?.[1]} confirmed`);
    expect(lines).toContainEqual(expect.stringMatching(/^retry 1: POST \/v1\/wallets\/\d+\/withdrawals answered 429, waiting \d+ ms$/));
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^POLICY policy_approval_required policies ${policy.id}: `)));
    expect(lines).toContainEqual(expect.stringMatching(/^REQUEST \d+ pending: /));

    // What walletd holds: the one payout (the client's key made each prepare its own), no second
    // withdrawal from the refused one, and the request of 1.2 ETH waiting for its approvals.
    const api = (path: string) => call(`http://127.0.0.1:${port}`, 'GET', `/v1${path}`, { key: s.rootKey });
    const payout = (await api(`/withdrawals/${sent?.[1]}`)).body;
    expect(payout).toMatchObject({ status: 'confirmed', amount: '0.5', toAddress: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' });
    expect(payout.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    const all = (await api(`/wallets/${payout.walletId}/withdrawals`)).body.withdrawals as unknown[];
    expect(all).toHaveLength(1);
    expect((await api('/withdrawal-requests')).body.requests).toEqual([
      expect.objectContaining({ status: 'pending', amount: '1.2', walletId: payout.walletId }),
    ]);
  }, 300_000);
});
