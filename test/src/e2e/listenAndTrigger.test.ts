import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifySignature } from '@walletd/receiver';
import {
  call,
  createTestDatabase,
  eventually,
  freePort,
  runWalletdAsync,
  seedCompany,
  spawnWalletd,
  startReceiver,
  type TestDatabase,
  type TestReceiver,
  type WalletdProcess,
} from '@walletd/test-harness';

/**
 * Issue 47 §2, the local webhook loop as the README runs it: a real `walletd serve` on the EVM
 * devnet, `walletd listen --forward-to` a local receiver, `walletd trigger deposit.confirmed`. The
 * receiver gets the deposit's events signed with the secret `listen` printed (the same after a
 * restart of `listen`), one line per event is printed, and the webhook is gone when `listen` stops.
 */
describe('walletd listen and walletd trigger on the devnet', () => {
  let t: TestDatabase;
  let serve: WalletdProcess;
  let receiver: TestReceiver;
  const listeners: WalletdProcess[] = [];

  beforeAll(async () => {
    t = await createTestDatabase();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    for (const l of listeners) if (l.child.exitCode === null) l.child.kill('SIGKILL');
    serve?.child.kill('SIGTERM');
    await serve?.exited;
    await receiver.close();
    await t.drop();
  });

  it('forwards a triggered devnet deposit, signed, to the local receiver; the secret survives a restart; the webhook goes on exit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'walletd-listen-'));
    const config = join(dir, 'walletd.json');
    writeFileSync(
      config,
      JSON.stringify({ bootstrap: false, dataDir: join(dir, '.walletd'), devnet: { chains: ['evm'], ports: { evm: await freePort() } } }),
    );
    const port = await freePort();
    const env = {
      DATABASE_URL: t.url,
      WALLETD_MASTER_KEY: 'ab'.repeat(32),
      PORT: String(port),
      HOST: '127.0.0.1',
      WALLETD_WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8',
    };
    serve = spawnWalletd(['serve', '--config', config, '--roles', 'api,indexer,dispatcher'], env);
    await serve.waitFor(/API listening/, 180_000);
    const s = await seedCompany(t.db, 'paid', 'Listen');
    const cli = { ...env, WALLETD_API_KEY: s.rootKey };

    const listenArgs = [
      'listen',
      '--config',
      config,
      '--forward-to',
      `${receiver.url}/hook`,
      '--events',
      'deposit.detected,deposit.confirmed',
    ];
    const first = spawnWalletd(listenArgs, cli);
    listeners.push(first);
    const secret = (await first.waitFor(/^Signing secret: (\S+)$/m))[1] as string;
    first.child.kill('SIGTERM');
    await first.waitFor(/^Removed webhook \d+$/m);
    expect((await call(`http://127.0.0.1:${port}`, 'GET', '/v1/webhooks', { key: s.rootKey })).body.webhooks).toEqual([]);

    const listen = spawnWalletd(listenArgs, cli);
    listeners.push(listen);
    expect((await listen.waitFor(/^Signing secret: (\S+)$/m))[1]).toBe(secret);
    const triggered = await runWalletdAsync(['trigger', 'deposit.confirmed', '--config', config], cli);
    expect(triggered.status).toBe(0);
    expect(triggered.json).toMatchObject({ event: 'deposit.confirmed', amount: '0.01', asset: 'ETH' });

    const got = await receiver.waitForRequests(2, 60_000);
    const types = got.map((r) => JSON.parse(r.rawBody).type);
    expect(types).toEqual(['deposit.detected', 'deposit.confirmed']);
    for (const r of got) {
      expect(verifySignature(secret, r.rawBody, r.headers['x-service-signature'] as string)).toBe(true);
      expect(JSON.parse(r.rawBody).data).toMatchObject({ toAddress: triggered.json.address, amount: '0.01' });
    }
    await listen.waitFor(/deposit\.confirmed 0\.01 ETH {2}-> 200/);
    expect(listen.stdout()).toMatch(/deposit\.detected 0\.01 ETH {2}-> 200/);
    listen.child.kill('SIGINT');
    await listen.waitFor(/^Removed webhook \d+$/m);
    await eventually(
      async () => (await call(`http://127.0.0.1:${port}`, 'GET', '/v1/webhooks', { key: s.rootKey })).body.webhooks,
      (hooks: unknown[]) => hooks.length === 0,
    );
  });
});
