import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateSealingKeyPair, openSealed } from '@walletd/core';
import { setEncryptionKey } from '@walletd/server';
import {
  type RecordedRippled,
  type TestDatabase,
  type TestReceiver,
  type WalletdProcess,
  call,
  createTestDatabase,
  eventually,
  freePort,
  seedCompany,
  spawnWalletd,
  startReceiver,
  startRecordedRippled,
} from '@walletd/test-harness';
import { Wallet } from 'xrpl';

/**
 * The real `walletd serve` (API, indexer, dispatcher in one process) with `@walletd/plugin-xrp`
 * named in the config, following xrp/localnet on the recorded-response rippled server (no rippled
 * runs here; the server models sequences, fees, the reserve and LastLedgerSequence, no consensus:
 * see test/src/harness/recordedRippled.ts), delivering to a real receiver on loopback.
 */
describe('walletd serve on the XRP Ledger (recorded-response server)', () => {
  let t: TestDatabase;
  let node: RecordedRippled;
  let rx: TestReceiver;
  let serve: WalletdProcess | null = null;
  let base: string;
  const hex = randomBytes(32).toString('hex');

  /** `walletd serve` on this suite's database, with `config` written to a fresh walletd.json. */
  function startServe(config: Record<string, unknown>, port: number, args: string[] = []): WalletdProcess {
    const file = join(mkdtempSync(join(tmpdir(), 'walletd-xrp-')), 'walletd.json');
    writeFileSync(file, JSON.stringify({ bootstrap: false, devnet: { enabled: false }, ...config }));
    return spawnWalletd(['serve', '--config', file, ...args], {
      DATABASE_URL: t.url,
      WALLETD_MASTER_KEY: hex,
      PORT: String(port),
      HOST: '127.0.0.1',
    });
  }

  beforeAll(async () => {
    t = await createTestDatabase();
    node = await startRecordedRippled();
    rx = await startReceiver();
    const port = await freePort();
    serve = startServe(
      {
        plugins: ['@walletd/plugin-evm', '@walletd/plugin-utxo', '@walletd/plugin-xrp'],
        chains: [{ chain: 'xrp', network: 'localnet', rpcUrl: node.url, startBlock: node.validated + 1, pollIntervalMs: 100 }],
        webhooks: { allowCidrs: ['127.0.0.0/8'], pollIntervalMs: 100 },
      },
      port,
    );
    await serve.waitFor(/API listening/);
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    if (serve && serve.child.exitCode === null) {
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
    await rx.close();
    await node.stop();
    await t.drop();
  });

  type Envelope = { type: string; data: Record<string, unknown> & { txHash: string; amount: string } };
  const bodies = () => rx.requests.map((r) => JSON.parse(r.rawBody) as Envelope);

  it('tagged deposits reach the receiver as r…:tag with their destinationTag; a partial payment as its delivered amount; an unknown tag on the account', async () => {
    const s = await seedCompany(t.db);
    const api = (method: string, path: string, body?: unknown) => call(base, method, `/v1${path}`, { key: s.rootKey, body });
    const wallet = (await api('POST', '/wallets', { name: 'xrp', chain: 'xrp', network: 'localnet' })).body;
    const a = (await api('POST', `/wallets/${wallet.id}/addresses`)).body;
    const b = (await api('POST', `/wallets/${wallet.id}/addresses`)).body;
    const listed = (await api('GET', `/wallets/${wallet.id}/addresses`)).body.addresses as { address: string; kind: string }[];
    const account = listed.find((x) => x.kind === 'account')?.address as string;
    expect(a).toMatchObject({ address: `${account}:${a.destinationTag}`, destinationTag: expect.any(Number) });
    expect((await api('POST', '/webhooks', { type: 'api', config: { url: `${rx.url}/hook` }, events: ['*'] })).status).toBe(201);

    const tagged = node.pay({ to: account, tag: a.destinationTag, amount: '25000000' });
    const partial = node.pay({ to: account, tag: b.destinationTag, amount: '314000000', partialDelivered: '181' });
    const unknown = node.pay({ to: account, tag: 99, amount: '3000000' });
    node.close();

    await rx.waitForRequests(6);
    const deposits = bodies().filter((e) => e.type.startsWith('deposit.'));
    expect(deposits.map((e) => [e.type, e.data.txHash, e.data.toAddress, e.data.destinationTag, e.data.amount]).sort()).toEqual(
      [
        ['deposit.detected', tagged, a.address, a.destinationTag, '25'],
        ['deposit.detected', partial, b.address, b.destinationTag, '0.000181'],
        ['deposit.detected', unknown, account, 99, '3'],
        ['deposit.confirmed', tagged, a.address, a.destinationTag, '25'],
        ['deposit.confirmed', partial, b.address, b.destinationTag, '0.000181'],
        ['deposit.confirmed', unknown, account, 99, '3'],
      ].sort(),
    );
    const onchain = (await api('GET', `/wallets/${wallet.id}/balances?onchain=true`)).body as {
      balances: { asset: { symbol: string }; confirmed: string; onchain: string; onchainSpendable: string }[];
    };
    // The account holds 28.000181 XRP; 1 XRP of it is the reserve.
    expect(onchain.balances.map((x) => [x.asset.symbol, x.confirmed, x.onchain, x.onchainSpendable])).toEqual([
      ['XRP', '28.000181', '28.000181', '27.000181'],
    ]);
  });

  it('a withdrawal with a destination tag is confirmed with the exact fee; one whose LastLedgerSequence passes ends rejected expired', async () => {
    const s = await seedCompany(t.db);
    const api = (method: string, path: string, body?: unknown) => call(base, method, `/v1${path}`, { key: s.rootKey, body });
    const wallet = (await api('POST', '/wallets', { name: 'payouts', chain: 'xrp', network: 'localnet' })).body;
    const a = (await api('POST', `/wallets/${wallet.id}/addresses`)).body;
    const account = a.address.split(':')[0];
    node.pay({ to: account, tag: a.destinationTag, amount: '40000000' });
    node.close();
    await eventually(
      async () => (await api('GET', `/wallets/${wallet.id}/balances`)).body as { balances: { confirmed: string }[] },
      (x) => x.balances.some((b) => b.confirmed === '40'),
    );
    const exchange = 'rNxp4h8apvRis6mJf9Sh8C6iRxfrDWN7AV';
    node.fund(exchange, 20_000_000n);
    node.close();

    const prepared = await api('POST', `/wallets/${wallet.id}/withdrawals`, {
      asset: 'XRP',
      toAddress: exchange,
      destinationTag: 352660523,
      amount: '12.5',
      idempotencyKey: 'xrp-1',
    });
    expect(prepared.status).toBe(201);
    const sent = await api('POST', `/withdrawals/${prepared.body.id}/broadcast`);
    expect(sent.status).toBe(200);
    node.close();
    const done = await eventually(
      async () => (await api('GET', `/withdrawals/${prepared.body.id}`)).body,
      (w) => w.status === 'confirmed',
    );
    expect(done.fee).toMatchObject({ amount: '0.000012' });
    expect(node.accounts.get(exchange)?.balance).toBe(32_500_000n);
    const paid = node.find(sent.body.txHash);
    expect(paid?.entry.tx).toMatchObject({ Destination: exchange, DestinationTag: 352660523, Amount: '12500000' });

    // The node takes the next one into its queue and drops it: LastLedgerSequence passes without it.
    node.queueOnly = true;
    const late = await api('POST', `/wallets/${wallet.id}/withdrawals`, {
      asset: 'XRP',
      toAddress: exchange,
      destinationTag: 1,
      amount: '1',
      idempotencyKey: 'xrp-2',
    });
    expect(late.status).toBe(201);
    expect((await api('POST', `/withdrawals/${late.body.id}/broadcast`)).status).toBe(200);
    for (let i = 0; i < 21; i++) node.close();
    const expired = await eventually(
      async () => (await api('GET', `/withdrawals/${late.body.id}`)).body,
      (w) => w.status === 'rejected',
    );
    node.queueOnly = false;
    expect(expired.reason).toBe('expired');
    // Announced once, with the reason, in the durable feed (once every older transaction in the
    // cluster has ended: other test files' transactions on the shared test server can delay it).
    const feed = await eventually(
      async () => (await api('GET', '/events?limit=100')).body as { events: Envelope[] },
      (f) => f.events.some((e) => e.type === 'withdrawal.rejected'),
    );
    const announced = feed.events.filter((e) => e.type === 'withdrawal.rejected');
    expect(announced.map((e) => [e.data.withdrawalId, e.data.reason])).toEqual([[late.body.id, 'expired']]);
  });

  it('the exported secret, opened with the company key, re-derives the account with xrpl.js; every deposit address is that account and its tag', async () => {
    const s = await seedCompany(t.db);
    const api = (method: string, path: string, body?: unknown) => call(base, method, `/v1${path}`, { key: s.rootKey, body });
    const wallet = (await api('POST', '/wallets', { name: 'cold', chain: 'xrp', network: 'localnet' })).body;
    for (let i = 0; i < 3; i++) expect((await api('POST', `/wallets/${wallet.id}/addresses`)).status).toBe(201);
    const pair = generateSealingKeyPair();
    await setEncryptionKey(t.db, s.companyId, pair.publicKeyPem);
    const sealed = await api('GET', `/wallets/${wallet.id}/secret`);
    expect(sealed.status).toBe(200);
    const mnemonic = openSealed(pair.privateKeyPem, sealed.body.sealedSecret, `wallet:${wallet.id}`).toString();
    const listed = (await api('GET', `/wallets/${wallet.id}/addresses`)).body.addresses as {
      address: string;
      path: string;
      kind: string;
      destinationTag: number | null;
    }[];
    const account = listed[0] as (typeof listed)[0];
    expect([account.kind, account.path]).toEqual(['account', "m/44'/144'/0'/0/0"]);
    expect(Wallet.fromMnemonic(mnemonic, { derivationPath: account.path }).classicAddress).toBe(account.address);
    const deposits = listed.filter((x) => x.kind === 'deposit');
    expect(deposits).toHaveLength(3);
    for (const d of deposits) expect(d.address).toBe(`${account.address}:${d.destinationTag}`);
  });

  it('refuses to start with an XRP node URL its client cannot use, naming the chain (not a 500 at the first withdrawal)', async () => {
    const p = startServe(
      {
        plugins: ['@walletd/plugin-evm', '@walletd/plugin-xrp'],
        chains: [{ chain: 'xrp', network: 'localnet', rpcUrl: 'http://127.0.0.1:5005' }],
      },
      await freePort(),
      ['--roles', 'api'],
    );
    // Without the check it starts and serves: stopped after a while, and then it is not a 1.
    const stop = setTimeout(() => p.child.kill('SIGTERM'), 20_000);
    expect(await p.exited.finally(() => clearTimeout(stop))).toBe(1);
    expect(p.stderr()).toMatch(/^walletd: chains\[\] xrp\/localnet: .*wss?:\/\//m);
  }, 40_000);
});
