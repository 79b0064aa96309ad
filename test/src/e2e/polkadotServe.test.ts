import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keyring } from '@polkadot/keyring';
import { generateSealingKeyPair, openSealed } from '@walletd/core';
import {
  type Chopsticks,
  type TestDatabase,
  type TestReceiver,
  type WalletdProcess,
  call,
  createTestDatabase,
  eventually,
  freePort,
  seedCompany,
  spawnWalletd,
  startChopsticks,
  startReceiver,
} from '@walletd/test-harness';

const ROC = 10n ** 12n;
const USDT = 1984;
/** //Bob: the payouts' recipient, funded at start (USDT here cannot create an account by itself). */
const BOB = '5FHneW46xGXgs5mUiveU4sbTyGBzmstUspZC92UhjJM694ty';

interface Envelope {
  type: string;
  data: {
    txHash?: string;
    amount?: string;
    toAddress?: string;
    asset?: { key: string };
    withdrawalId?: number;
    fee?: { amount: string; asset: { key: string } };
  };
}

/**
 * The real `walletd serve` (API, indexer, dispatcher) with the Polkadot plugin enabled by name in
 * the config, against chopsticks running the Rococo Asset Hub runtime (a block every ~0.5 s, as a
 * collator makes them; its finalized head is its best head): a DOT-family (ROC) and an
 * allow-listed asset (id 1984) deposit reach a real local receiver as deposit.detected then
 * deposit.confirmed; both are paid out and end in withdrawal.confirmed with the exact fee. The
 * wallet secret the API exports re-derives every deposit address with polkadot.js' keyring at the
 * path the API reported.
 */
describe('walletd serve on Polkadot (chopsticks, Rococo Asset Hub runtime)', () => {
  let t: TestDatabase;
  let node: Chopsticks;
  let rx: TestReceiver;
  let proc: WalletdProcess | null = null;
  let ticker: NodeJS.Timeout | undefined;
  let building: Promise<unknown> = Promise.resolve();
  let base: string;
  const hex = randomBytes(32).toString('hex');
  const sealing = generateSealingKeyPair();

  /** Blocks are built one at a time: the ticker and the test's own blocks never overlap. */
  const block = (transactions: string[] = []) => {
    building = building.then(() => node.newBlock(transactions));
    return building;
  };

  beforeAll(async () => {
    t = await createTestDatabase();
    node = await startChopsticks({ endowed: [BOB] });
    await node.createAsset(USDT, 1000n, 10n ** 12n);
    rx = await startReceiver();
    // A tick while a block is still being built is skipped: on a loaded machine a block takes longer
    // than the interval, and queueing one per tick grew a chain that teardown then had to wait out.
    let ticking = false;
    ticker = setInterval(() => {
      if (ticking) return;
      ticking = true;
      void block()
        .catch(() => undefined)
        .finally(() => {
          ticking = false;
        });
    }, 500);
    const dir = mkdtempSync(join(tmpdir(), 'walletd-polkadot-'));
    const config = join(dir, 'walletd.json');
    writeFileSync(
      config,
      JSON.stringify({
        bootstrap: false,
        devnet: { enabled: false },
        plugins: ['@walletd/plugin-evm', '@walletd/plugin-utxo', '@walletd/plugin-polkadot'],
        webhooks: { allowCidrs: ['127.0.0.0/8'], pollIntervalMs: 100 },
        chains: [
          {
            chain: 'polkadot',
            network: 'localnet',
            rpcUrl: node.url,
            startBlock: Number(await node.head()) + 1,
            pollIntervalMs: 200,
            tokens: [{ contract: String(USDT), symbol: 'USDT', decimals: 6 }],
          },
        ],
      }),
    );
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    proc = spawnWalletd(['serve', '--config', config], {
      DATABASE_URL: t.url,
      WALLETD_MASTER_KEY: hex,
      PORT: String(port),
      HOST: '127.0.0.1',
    });
    await proc.waitFor(/API listening/);
  }, 180_000);
  afterAll(async () => {
    if (ticker) clearInterval(ticker);
    await building.catch(() => undefined);
    proc?.child.kill('SIGTERM');
    await proc?.exited;
    await rx?.close();
    await node?.stop();
    await t?.drop();
  });

  it('deposits ROC and USDT, pays both out with exact fees, and the exported secret re-derives every address', async () => {
    const s = await seedCompany(t.db);
    await t
      .db('companies')
      .where({ id: s.companyId })
      .update({ encryption_public_key: sealing.publicKeyPem, encryption_key_set_at: t.db.fn.now() });
    const api = (method: string, path: string, body?: unknown) => call(base, method, `/v1${path}`, { key: s.rootKey, body });
    expect((await api('POST', '/webhooks', { type: 'api', config: { url: `${rx.url}/hook` }, events: ['*'] })).status).toBe(201);
    const wallet = (await api('POST', '/wallets', { name: 'dot', chain: 'polkadot', network: 'localnet' })).body;
    const primary = (await api('POST', `/wallets/${wallet.id}/addresses`)).body;
    const second = (await api('POST', `/wallets/${wallet.id}/addresses`)).body;
    expect([primary.path, second.path]).toEqual(['//0', '//1']);

    // Deposits: ROC, then USDT (not a sufficient asset here: the account exists once the ROC arrived).
    const { api: papi } = node;
    const rocTx = await node.sign(papi.tx.balances.transferKeepAlive(primary.address, 10n * ROC));
    await block([rocTx]);
    const usdtTx = await node.sign(papi.tx.assets.transferKeepAlive(USDT, primary.address, 2_500_000n));
    await block([usdtTx]);
    const hashOf = (raw: string) => papi.createType('Extrinsic', raw).hash.toHex();
    const events = (): Envelope[] => rx.requests.map((r) => JSON.parse(r.rawBody) as Envelope);
    const deposits = await eventually(
      async () => events().filter((e) => e.type.startsWith('deposit.')),
      (list) => list.filter((e) => e.type === 'deposit.confirmed').length === 2,
      60_000,
    );
    const of = (tx: string) =>
      deposits.filter((e) => e.data.txHash === hashOf(tx)).map((e) => [e.type, e.data.amount, e.data.toAddress, e.data.asset?.key]);
    expect(of(rocTx)).toEqual([
      ['deposit.detected', '10', primary.address, 'polkadot:localnet:roc'],
      ['deposit.confirmed', '10', primary.address, 'polkadot:localnet:roc'],
    ]);
    expect(of(usdtTx)).toEqual([
      ['deposit.detected', '2.5', primary.address, `polkadot:localnet:${USDT}`],
      ['deposit.confirmed', '2.5', primary.address, `polkadot:localnet:${USDT}`],
    ]);

    // On-chain balances (system.account free minus the larger of frozen and the existential deposit; assets.account).
    const ed = papi.consts.balances.existentialDeposit.toBigInt();
    const onchain = (await api('GET', `/wallets/${wallet.id}/balances?onchain=true`)).body.balances as {
      asset: { key: string };
      confirmed: string;
      onchain: string;
      onchainSpendable: string;
    }[];
    const spendable = (10n * ROC - ed).toString().padStart(13, '0');
    expect(onchain.map((b) => [b.asset.key, b.confirmed, b.onchain, b.onchainSpendable])).toEqual([
      ['polkadot:localnet:roc', '10', '10', `${spendable.slice(0, -12)}.${spendable.slice(-12)}`],
      [`polkadot:localnet:${USDT}`, '2.5', '2.5', '2.5'],
    ]);

    // Payouts to //Bob (funded at start: an existing account).
    const bob = BOB;
    expect(node.keyring.addFromUri('//Bob').address).toBe(BOB);
    const free = async (who: string) => (await papi.query.system.account(who)).data.free.toBigInt();
    const bobBefore = await free(bob);
    const primaryBefore = await free(primary.address);
    const payout = async (body: Record<string, unknown>) => {
      const prepared = await api('POST', `/wallets/${wallet.id}/withdrawals`, body);
      expect(prepared.status).toBe(201);
      const sent = await api('POST', `/withdrawals/${prepared.body.id}/broadcast`);
      expect(sent.status).toBe(200);
      return sent.body as { id: number; txHash: string };
    };
    const rocOut = await payout({ asset: 'ROC', toAddress: bob, amount: '1.5', idempotencyKey: 'roc-out-1' });
    const usdtOut = await payout({ asset: 'USDT', toAddress: bob, amount: '1.25', idempotencyKey: 'usdt-out-1' });
    const done = await eventually(
      async () => events().filter((e) => e.type.startsWith('withdrawal.')),
      (list) => list.filter((e) => e.type === 'withdrawal.confirmed').length === 2,
      90_000,
    );
    const byId = (id: number) => done.filter((e) => e.data.withdrawalId === id);
    expect(byId(rocOut.id).map((e) => e.type)).toEqual(['withdrawal.broadcast', 'withdrawal.confirmed']);
    expect(byId(usdtOut.id).map((e) => e.type)).toEqual(['withdrawal.broadcast', 'withdrawal.confirmed']);
    const fee = (id: number) => {
      const f = byId(id).find((e) => e.type === 'withdrawal.confirmed')?.data.fee;
      expect(f?.asset.key).toBe('polkadot:localnet:roc');
      const [whole, fraction = ''] = (f?.amount ?? '').split('.');
      return BigInt(`${whole}${fraction.padEnd(12, '0')}`);
    };
    // The runtime's balances: Bob got exactly the amounts, the primary lost them plus the fees reported.
    expect((await free(bob)) - bobBefore).toBe(1_500_000_000_000n);
    const usdtOfBob = await papi.query.assets.account(USDT, bob);
    expect(usdtOfBob.isSome && usdtOfBob.unwrap().balance.toBigInt()).toBe(1_250_000n);
    expect(primaryBefore - (await free(primary.address))).toBe(1_500_000_000_000n + fee(rocOut.id) + fee(usdtOut.id));

    // The exported secret, opened with the company's key, re-derives every address at its path with polkadot.js.
    const exported = (await api('GET', `/wallets/${wallet.id}/secret`)).body as { sealedSecret: string };
    const mnemonic = openSealed(sealing.privateKeyPem, exported.sealedSecret, `wallet:${wallet.id}`).toString('utf8');
    const listed = (await api('GET', `/wallets/${wallet.id}/addresses`)).body.addresses as { address: string; path: string }[];
    expect(listed.map((a) => a.address)).toEqual([primary.address, second.address]);
    const keyring = new Keyring({ type: 'sr25519', ss58Format: 42 });
    expect(listed.map((a) => keyring.addFromUri(`${mnemonic}${a.path}`).address)).toEqual(listed.map((a) => a.address));
  }, 240_000);
});
