import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateSealingKeyPair, openSealed } from '@walletd/core';
import { setEncryptionKey } from '@walletd/server';
import {
  PAYER,
  type RecordedTronNode,
  type TestDatabase,
  type TestReceiver,
  USDT,
  type WalletdProcess,
  call,
  createTestDatabase,
  eventually,
  freePort,
  seedCompany,
  spawnWalletd,
  startReceiver,
  startRecordedTronNode,
} from '@walletd/test-harness';
import { utils } from 'tronweb';

/**
 * The real `walletd serve` (API, indexer, dispatcher in one process) with `@walletd/plugin-tron`
 * enabled in the config, following tron/devnet on the recorded-response server (no java-tron runs
 * here; the server executes nothing, see test/src/harness/recordedTronNode.ts), delivering to a real
 * receiver on loopback.
 */
describe('walletd serve on Tron (recorded-response server)', () => {
  let t: TestDatabase;
  let node: RecordedTronNode;
  let rx: TestReceiver;
  let serve: WalletdProcess | null = null;
  let base: string;
  const hex = randomBytes(32).toString('hex');

  beforeAll(async () => {
    t = await createTestDatabase();
    node = await startRecordedTronNode({ head: 10_000, solidLag: 3 });
    rx = await startReceiver();
    const dir = mkdtempSync(join(tmpdir(), 'walletd-tron-'));
    const config = join(dir, 'walletd.json');
    writeFileSync(
      config,
      JSON.stringify({
        bootstrap: false,
        devnet: { enabled: false },
        plugins: ['@walletd/plugin-evm', '@walletd/plugin-utxo', '@walletd/plugin-tron'],
        chains: [
          {
            chain: 'tron',
            network: 'devnet',
            rpcUrl: node.url,
            startBlock: 10_001,
            pollIntervalMs: 100,
            tokens: [{ contract: USDT, symbol: 'USDT', decimals: 6 }],
          },
        ],
        webhooks: { allowCidrs: ['127.0.0.0/8'], pollIntervalMs: 100 },
      }),
    );
    const port = await freePort();
    serve = spawnWalletd(['serve', '--config', config], {
      DATABASE_URL: t.url,
      WALLETD_MASTER_KEY: hex,
      PORT: String(port),
      HOST: '127.0.0.1',
    });
    await serve.waitFor(/API listening/);
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    if (serve && serve.child.exitCode === null) {
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
    await rx.close();
    await node.close();
    await t.drop();
  });

  it('delivers deposit.detected then deposit.confirmed for a TRX and a USDT deposit, and nothing for the hostile transfers beside them', async () => {
    const s = await seedCompany(t.db);
    const api = (method: string, path: string, body?: unknown) => call(base, method, `/v1${path}`, { key: s.rootKey, body });
    const wallet = (await api('POST', '/wallets', { name: 'tron', chain: 'tron', network: 'devnet' })).body;
    const a = (await api('POST', `/wallets/${wallet.id}/addresses`)).body;
    expect(a).toMatchObject({ address: expect.stringMatching(/^T/), path: "m/44'/195'/0'/0/0" });
    const hook = await api('POST', '/webhooks', { type: 'api', config: { url: `${rx.url}/hook` }, events: ['*'] });
    expect(hook.status).toBe(201);

    const trx = node.payTrx(a.address, 12_500_000n);
    const usdt = node.payTrc20(USDT, a.address, 41_677_389n);
    node.payTrc20('TTmaAAbFPtACn1amP3FBkmmUygFh8udAvA', a.address, 1_000_000n); // look-alike contract
    node.payTrc20(USDT, a.address, 2_000_000n, 'REVERT');
    node.payTrc20(USDT, a.address, 3_000_000n, 'NO_LOG');
    node.mine();

    type Envelope = {
      type: string;
      data: { txHash: string; amount: string; asset: { symbol: string }; status: string; toAddress: string; fromAddress: string };
    };
    const bodies = () => rx.requests.map((r) => JSON.parse(r.rawBody) as Envelope);
    await rx.waitForRequests(2);
    expect(
      bodies()
        .map((e) => [e.type, e.data.txHash, e.data.amount, e.data.asset.symbol, e.data.status, e.data.toAddress, e.data.fromAddress])
        .sort(),
    ).toEqual(
      [
        ['deposit.detected', trx, '12.5', 'TRX', 'pending', a.address, PAYER.address],
        ['deposit.detected', usdt, '41.677389', 'USDT', 'pending', a.address, PAYER.address],
      ].sort(),
    );

    // The solidified block (3 behind the head) reaches the deposits' block.
    node.mine(3);
    await rx.waitForRequests(4);
    const confirmed = bodies().filter((e) => e.type === 'deposit.confirmed');
    expect(confirmed.map((e) => [e.data.txHash, e.data.amount, e.data.status]).sort()).toEqual(
      [
        [trx, '12.5', 'confirmed'],
        [usdt, '41.677389', 'confirmed'],
      ].sort(),
    );
    // The durable feed holds exactly these four deposit events: the hostile transfers made none.
    // An event shows there once every older transaction in the cluster has ended (never skipped):
    // other test files' transactions on the shared test server can delay it a moment.
    const feed = await eventually(
      async () => (await api('GET', '/events?limit=100')).body as { events: Envelope[] },
      (f) => f.events.length >= 4,
    );
    expect(feed.events.map((e) => e.type).sort()).toEqual([
      'deposit.confirmed',
      'deposit.confirmed',
      'deposit.detected',
      'deposit.detected',
    ]);
    const balances = await eventually(
      async () =>
        (await api('GET', `/wallets/${wallet.id}/balances`)).body as { balances: { asset: { symbol: string }; confirmed: string }[] },
      (b) => b.balances.every((x) => x.confirmed !== '0'),
    );
    expect(balances.balances.map((b) => [b.asset.symbol, b.confirmed])).toEqual([
      ['TRX', '12.5'],
      ['USDT', '41.677389'],
    ]);
    // What the node reports (getaccount; balanceOf by a constant call) agrees with what was credited.
    const onchain = (await api('GET', `/wallets/${wallet.id}/balances?onchain=true`)).body as {
      balances: { asset: { symbol: string }; confirmed: string; onchain: string }[];
    };
    expect(onchain.balances.map((b) => [b.asset.symbol, b.onchain])).toEqual([
      ['TRX', '12.5'],
      ['USDT', '41.677389'],
    ]);
  });

  it('withdraws through the API: TRX confirmed with the exact fee; USDT refused with 422 while the address lacks TRX for energy, then confirmed', async () => {
    const s = await seedCompany(t.db);
    const api = (method: string, path: string, body?: unknown) => call(base, method, `/v1${path}`, { key: s.rootKey, body });
    const wallet = (await api('POST', '/wallets', { name: 'payouts', chain: 'tron', network: 'devnet' })).body;
    const a = (await api('POST', `/wallets/${wallet.id}/addresses`)).body;
    node.payTrx(a.address, 20_000_000n);
    node.payTrc20(USDT, a.address, 50_000_000n);
    node.mine(4);
    await eventually(
      async () => (await api('GET', `/wallets/${wallet.id}/balances`)).body as { balances: { confirmed: string }[] },
      (b) => b.balances.every((x) => x.confirmed !== '0'),
    );
    const recipient = 'TJ4eV1hnVAiFmeArBsuL6GkgTGVnWBe7eV';

    const prepared = await api('POST', `/wallets/${wallet.id}/withdrawals`, {
      asset: 'TRX',
      toAddress: recipient,
      amount: '1.5',
      idempotencyKey: 'tron-1',
    });
    expect(prepared.status).toBe(201);
    const sent = await api('POST', `/withdrawals/${prepared.body.id}/broadcast`);
    expect(sent.status).toBe(200);
    expect(node.broadcasts(sent.body.txHash)).toBe(1);
    node.mine(4);
    const done = await eventually(
      async () => (await api('GET', `/withdrawals/${prepared.body.id}`)).body,
      (w) => w.status === 'confirmed',
    );
    // The recipient did not exist on this chain: 1 TRX account creation + 0.1 TRX bandwidth, from the receipt.
    expect(done.fee).toMatchObject({ amount: '1.1' });
    expect(done.history.map((h: { status: string }) => h.status)).toEqual(['prepared', 'signed', 'broadcast', 'confirmed']);

    // Leave the address 2 TRX: too little for the energy a USDT transfer may burn (walletd does not top it up).
    node.setBalance(a.address, 2_000_000n);
    const refused = await api('POST', `/wallets/${wallet.id}/withdrawals`, {
      asset: 'USDT',
      toAddress: recipient,
      amount: '10',
      idempotencyKey: 'tron-2',
    });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({
      code: 'insufficient_funds',
      message: `${a.address} needs up to 16.93705 TRX for energy and bandwidth and holds 2 TRX (short by 14.93705 TRX); send TRX to it first`,
    });
    node.setBalance(a.address, 30_000_000n);
    const token = await api('POST', `/wallets/${wallet.id}/withdrawals`, {
      asset: 'USDT',
      toAddress: recipient,
      amount: '10',
      idempotencyKey: 'tron-3',
    });
    expect(token.status).toBe(201);
    expect((await api('POST', `/withdrawals/${token.body.id}/broadcast`)).status).toBe(200);
    node.mine(4);
    const paid = await eventually(
      async () => (await api('GET', `/withdrawals/${token.body.id}`)).body,
      (w) => w.status === 'confirmed',
    );
    expect(paid.fee).toMatchObject({ amount: '13.0285' });
    expect(node.tokenBalance(USDT, recipient)).toBe(10_000_000n);
  });

  it('the exported secret, opened with the company key, re-derives every deposit address at its reported path with tronweb', async () => {
    const s = await seedCompany(t.db);
    const api = (method: string, path: string, body?: unknown) => call(base, method, `/v1${path}`, { key: s.rootKey, body });
    const wallet = (await api('POST', '/wallets', { name: 'cold', chain: 'tron', network: 'devnet' })).body;
    for (let i = 0; i < 3; i++) expect((await api('POST', `/wallets/${wallet.id}/addresses`)).status).toBe(201);
    const pair = generateSealingKeyPair();
    await setEncryptionKey(t.db, s.companyId, pair.publicKeyPem);
    const sealed = await api('GET', `/wallets/${wallet.id}/secret`);
    expect(sealed.status).toBe(200);
    const mnemonic = openSealed(pair.privateKeyPem, sealed.body.sealedSecret, `wallet:${wallet.id}`).toString();
    const listed = (await api('GET', `/wallets/${wallet.id}/addresses`)).body.addresses as { address: string; path: string }[];
    expect(listed.map((x) => x.path)).toEqual(["m/44'/195'/0'/0/0", "m/44'/195'/0'/0/1", "m/44'/195'/0'/0/2"]);
    for (const x of listed) expect(utils.accounts.generateAccountWithMnemonic(mnemonic, x.path).address).toBe(x.address);
  });
});
