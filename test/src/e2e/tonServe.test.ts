import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Address, beginCell, toNano } from '@ton/core';
import { generateSealingKeyPair, openSealed } from '@walletd/core';
import { setEncryptionKey } from '@walletd/server';
import {
  type TestDatabase,
  type TestReceiver,
  TonSandboxNode,
  type WalletdProcess,
  call,
  createTestDatabase,
  eventually,
  freePort,
  seedCompany,
  spawnWalletd,
  startReceiver,
} from '@walletd/test-harness';

/**
 * Standard tools, outside walletd: @scure/bip39 (mnemonic to seed), micro-key-producer's SLIP-10
 * (paulmillr's) and @ton/ton's wallet v5r1, run by plain node (micro-key-producer ships ES modules
 * only, which jest cannot load). Prints the v5r1 wallet (raw) of the key at each path.
 */
async function restoreWithStandardTools(mnemonic: string, paths: string[]): Promise<string[]> {
  const script = `
    const { HDKey } = require('micro-key-producer/slip10.js');
    const { mnemonicToSeedSync } = require('@scure/bip39');
    const { WalletContractV5R1 } = require('@ton/ton');
    const { mnemonic, paths } = JSON.parse(process.argv[1]);
    const seed = mnemonicToSeedSync(mnemonic);
    console.log(JSON.stringify(paths.map((p) => WalletContractV5R1.create({ publicKey: Buffer.from(HDKey.fromMasterSeed(seed).derive(p).publicKeyRaw) }).address.toRawString())));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', script, JSON.stringify({ mnemonic, paths })], { cwd: __dirname });
  return JSON.parse(stdout) as string[];
}

/**
 * The real `walletd serve` with `@walletd/plugin-ton` named in the config, following ton/localnet
 * through the toncenter test adapter over @ton/sandbox (the real emulator executes every transfer;
 * the adapter makes up the blocks), delivering to a real receiver on loopback.
 */
describe('walletd serve on TON (toncenter adapter over the sandbox)', () => {
  let t: TestDatabase;
  let node: TonSandboxNode;
  let rx: TestReceiver;
  let serve: WalletdProcess | null = null;
  let base: string;
  let minter: { address: Address };
  const hex = randomBytes(32).toString('hex');

  beforeAll(async () => {
    t = await createTestDatabase();
    node = await TonSandboxNode.start();
    rx = await startReceiver();
    const { JettonMinter } = require('@ton-community/assets-sdk') as typeof import('@ton-community/assets-sdk');
    const admin = await node.chain.treasury('admin');
    const m = node.chain.openContract(JettonMinter.createFromConfig({ admin: admin.address, content: beginCell().endCell() }));
    node.record(await m.sendDeploy(admin.getSender(), toNano('0.1')));
    minter = m;
    const start = node.mine() + 1;
    const dir = mkdtempSync(join(tmpdir(), 'walletd-ton-'));
    const config = join(dir, 'walletd.json');
    writeFileSync(
      config,
      JSON.stringify({
        bootstrap: false,
        devnet: { enabled: false },
        plugins: ['@walletd/plugin-evm', '@walletd/plugin-utxo', '@walletd/plugin-ton'],
        chains: [
          {
            chain: 'ton',
            network: 'localnet',
            rpcUrl: node.url,
            startBlock: start,
            pollIntervalMs: 100,
            tokens: [{ contract: m.address.toString(), symbol: 'USDT', decimals: 6 }],
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

  it('delivers TON and USDT deposits with their memos, pays TON and USDT out with exact fees, and the exported secret re-derives every address', async () => {
    const { JettonMinter } = require('@ton-community/assets-sdk') as typeof import('@ton-community/assets-sdk');
    const s = await seedCompany(t.db);
    const api = (method: string, path: string, body?: unknown) => call(base, method, `/v1${path}`, { key: s.rootKey, body });
    const wallet = (await api('POST', '/wallets', { name: 'ton', chain: 'ton', network: 'localnet' })).body;
    const a = (await api('POST', `/wallets/${wallet.id}/addresses`)).body;
    expect(a).toMatchObject({ address: expect.stringMatching(/^0Q/), path: "m/44'/607'/0'/0'/0'/0'" });
    expect((await api('POST', '/webhooks', { type: 'api', config: { url: `${rx.url}/hook` }, events: ['*'] })).status).toBe(201);

    const admin = await node.chain.treasury('admin');
    const m = node.chain.openContract(JettonMinter.createFromAddress(minter.address));
    const to = Address.parse(a.address);
    node.record(
      await admin.send({
        to,
        value: toNano('3'),
        bounce: false,
        body: beginCell().storeUint(0, 32).storeStringTail('deposit 1').endCell(),
      }),
    );
    node.record(
      await m.sendMint(admin.getSender(), to, 40_000_000n, {
        value: toNano('0.2'),
        notify: { amount: 1n, payload: beginCell().storeUint(0, 32).storeStringTail('usdt 1').endCell() },
      }),
    );
    node.mine();

    await rx.waitForRequests(4);
    const deposits = rx.requests.map((r) => JSON.parse(r.rawBody)).filter((e) => e.type.startsWith('deposit.'));
    expect(deposits.map((e) => [e.type, e.data.asset.symbol, e.data.amount, e.data.toAddress, e.data.memo]).sort()).toEqual(
      [
        ['deposit.confirmed', 'TON', '3', a.address, 'deposit 1'],
        ['deposit.confirmed', 'USDT', '40', a.address, 'usdt 1'],
        ['deposit.detected', 'TON', '3', a.address, 'deposit 1'],
        ['deposit.detected', 'USDT', '40', a.address, 'usdt 1'],
      ].sort(),
    );

    const exchange = (await node.chain.treasury('exchange')).address.toString({ testOnly: true });
    const ton = await api('POST', `/wallets/${wallet.id}/withdrawals`, {
      asset: 'TON',
      toAddress: exchange,
      amount: '1.25',
      memo: 'payout 1',
      idempotencyKey: 'ton-1',
    });
    expect(ton.status).toBe(201);
    expect((await api('POST', `/withdrawals/${ton.body.id}/broadcast`)).status).toBe(200);
    node.mine();
    const paid = await eventually(
      async () => (await api('GET', `/withdrawals/${ton.body.id}`)).body,
      (w) => w.status === 'confirmed',
    );
    expect(Number(paid.fee.amount)).toBeGreaterThan(0);
    // The hash reported once confirmed is the wallet's transaction (what explorers show), not the external message's.
    const walletTx = node.blocks.flatMap((b) => b.items).find((i) => i.account.equals(to) && i.tx.inMessage?.info.type === 'external-in');
    expect(paid.txHash).toBe(walletTx?.hash);
    const confirmedEvent = await eventually(
      async () =>
        rx.requests.map((r) => JSON.parse(r.rawBody)).find((e) => e.type === 'withdrawal.confirmed' && e.data.withdrawalId === ton.body.id),
      (e) => e !== undefined,
    );
    expect(confirmedEvent.data.txHash).toBe(walletTx?.hash);
    const usdt = await api('POST', `/wallets/${wallet.id}/withdrawals`, {
      asset: 'USDT',
      toAddress: exchange,
      amount: '15',
      memo: 'inv 2',
      idempotencyKey: 'ton-2',
    });
    expect(usdt.status).toBe(201);
    expect((await api('POST', `/withdrawals/${usdt.body.id}/broadcast`)).status).toBe(200);
    node.mine();
    await eventually(
      async () => (await api('GET', `/withdrawals/${usdt.body.id}`)).body,
      (w) => w.status === 'confirmed',
    );
    // What walletd counts equals what the chain holds (the fees are exact, so nothing drifts).
    const balances = await eventually(
      async () =>
        (await api('GET', `/wallets/${wallet.id}/balances?onchain=true`)).body as {
          balances: { asset: { symbol: string }; confirmed: string; onchain: string }[];
        },
      (b) => b.balances.every((x) => x.confirmed === x.onchain),
    );
    expect(balances.balances.find((b) => b.asset.symbol === 'USDT')?.onchain).toBe('25');

    const pair = generateSealingKeyPair();
    await setEncryptionKey(t.db, s.companyId, pair.publicKeyPem);
    for (let i = 0; i < 2; i++) expect((await api('POST', `/wallets/${wallet.id}/addresses`)).status).toBe(201);
    const sealed = await api('GET', `/wallets/${wallet.id}/secret`);
    const mnemonic = openSealed(pair.privateKeyPem, sealed.body.sealedSecret, `wallet:${wallet.id}`).toString();
    const listed = (await api('GET', `/wallets/${wallet.id}/addresses`)).body.addresses as { address: string; path: string }[];
    expect(listed).toHaveLength(3);
    // The standard tools derive mainnet-id wallets; localnet runs mainnet's network id, so they agree.
    const restored = await restoreWithStandardTools(
      mnemonic,
      listed.map((x) => x.path),
    );
    expect(restored).toEqual(listed.map((x) => Address.parse(x.address).toRawString()));
  });
});
