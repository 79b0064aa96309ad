import { randomBytes } from 'node:crypto';
import { type ChainSettings, MasterKey, type Metrics, createLogger, createMetrics } from '@walletd/core';
import { createDetectPool, createFollower, type DetectPool, type Follower } from '@walletd/indexer';
import { createEvmPlugin } from '@walletd/plugin-evm';
import { parseEvent, verifySignature } from '@walletd/receiver';
import { type Dispatcher, createDispatcher, loadPlugins } from '@walletd/server';
import {
  ANVIL_FUNDER,
  type Anvil,
  type FeeToken,
  type Seeded,
  type TestApp,
  type TestDatabase,
  type TestReceiver,
  type TestToken,
  call,
  createTestDatabase,
  deployFeeToken,
  deployTestToken,
  eventually,
  expectSchema,
  seedCompany,
  startAnvil,
  startReceiver,
  startTestApp,
  testConfig,
} from '@walletd/test-harness';
import { Interface } from 'ethers';

/** anvil's second default account: unlocked, owns no tokens, an allowance from nobody. */
const ATTACKER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const RECIPIENT = '0x000000000000000000000000000000000000bEEF';
const erc20 = new Interface(['function transfer(address to, uint256 amount) returns (bool)']);

/**
 * Issue 41 §3 and §4 on anvil, through the follower, the event log and the API: a token transfer
 * of 0 (address poisoning: `transfer(deposit, 0)`, and `transferFrom(anyone, deposit, 0)` which
 * needs no allowance) records nothing and announces nothing; a fee-on-transfer token whose log
 * states the full amount while less arrives is held pending (`balance_mismatch`), never confirmed
 * nor available, so a payout of it is refused; an honest fee token (it logs what arrived) is
 * credited as usual; a withdrawal in the same block as a deposit is no mismatch.
 */
describe('EVM tokens that misreport', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  let pool: DetectPool;
  let usdc: TestToken;
  let overstating: FeeToken;
  let honest: FeeToken;
  let app: TestApp;
  let s: Seeded;
  let follower: Follower;
  let metrics: Metrics;
  let walletId: number;
  let deposit: string;
  let rx: TestReceiver;
  let dispatcher: Dispatcher;
  let secret: string;
  const masterKey = new MasterKey(randomBytes(32));

  const api = (method: string, path: string, body?: unknown) => call(app.url, method, `/v1${path}`, { key: s.rootKey, body });
  const round = async () => {
    await anvil.mine(3);
    await follower.tick();
  };
  const rowsOf = (txHash: string) =>
    t.db('transfers').where({ tx_hash: txHash }).orderBy('event_index').select('event_index', 'amount', 'status', 'reason', 'to_address');
  const eventsOf = async (txHash: string) =>
    (await t.db('events').orderBy('seq').select('type', 'body'))
      .map((e: { type: string; body: string }) => ({ type: e.type, data: JSON.parse(e.body).data }))
      .filter((e) => e.data?.txHash === txHash)
      .map((e) => ({ type: e.type, amount: e.data.amount, reason: e.data.reason ?? null }));
  const withheld = async (reason: string) =>
    (await metrics.depositsWithheld.get()).values.find((v) => v.labels.reason === reason)?.value ?? 0;
  /** What the real receiver was sent about `txHash`, each request's signature checked and parsed by @walletd/receiver. */
  const receivedOf = async (txHash: string) => {
    await eventually(
      async () => {
        await dispatcher.runOnce();
        return Number((await t.db('webhook_deliveries').where({ status: 'pending' }).count('* as n'))[0]?.n);
      },
      (n) => n === 0,
    );
    return rx.requests
      .map((r) => {
        expect(verifySignature(secret, r.rawBody, r.headers['x-service-signature'] as string)).toBe(true);
        return parseEvent(r.rawBody) as { type: string; data: { txHash?: string; amount?: string; reason?: string } };
      })
      .filter((e) => e.data.txHash === txHash)
      .map((e) => ({ type: e.type, amount: e.data.amount, reason: e.data.reason ?? null }));
  };
  const balanceOf = async (symbol: string) => {
    const res = await api('GET', `/wallets/${walletId}/balances`);
    expectSchema('Balances', res.body);
    return (res.body.balances as { asset: { symbol: string } }[]).find((b) => b.asset.symbol === symbol);
  };

  beforeAll(async () => {
    t = await createTestDatabase();
    anvil = await startAnvil();
    pool = createDetectPool(1);
    usdc = await deployTestToken(anvil, 'USD Coin', 'USDC', 6);
    overstating = await deployFeeToken(anvil, { feeBps: 100, logsNet: false });
    honest = await deployFeeToken(anvil, { feeBps: 100, logsNet: true, collector: '0x000000000000000000000000000000000000c011' });
    for (const token of [usdc, overstating, honest]) await token.mint(ANVIL_FUNDER, 1_000_000_000n);
    const settings: ChainSettings = {
      chain: 'ethereum',
      network: 'devnet',
      rpcUrl: anvil.url,
      confirmations: 2,
      startBlock: 0,
      tokens: [
        { contract: usdc.address, symbol: 'USDC', decimals: 6 },
        { contract: overstating.address, symbol: 'FOT', decimals: 6 },
        { contract: honest.address, symbol: 'NET', decimals: 6 },
      ],
    };
    const config = { chains: [settings], webhooks: { allowCidrs: ['127.0.0.0/8'] } };
    app = await startTestApp(t.db, config, masterKey);
    metrics = createMetrics();
    follower = createFollower({
      db: t.db,
      logger: createLogger({ level: 'silent' }),
      pool,
      plugin: createEvmPlugin(),
      settings,
      metrics,
    });
    s = await seedCompany(t.db);
    walletId = (await api('POST', '/wallets', { name: 'hot', chain: 'ethereum', network: 'devnet' })).body.id;
    deposit = (await api('POST', `/wallets/${walletId}/addresses`)).body.address;
    // Gas for a payout from the deposit address: a refusal below is about the token, not the fee.
    await anvil.send(deposit, 10n ** 18n);
    rx = await startReceiver();
    dispatcher = createDispatcher({
      config: testConfig(config),
      logger: createLogger({ level: 'silent' }),
      db: t.db,
      masterKey,
      plugins: loadPlugins(),
    });
    const hook = await api('POST', '/webhooks', { type: 'api', config: { url: `${rx.url}/walletd` }, events: ['*'] });
    secret = hook.body.signingSecret;
  });
  afterAll(async () => {
    await dispatcher?.stop();
    await rx?.close();
    await app.close();
    await pool.close();
    await anvil.stop();
    await t.drop();
  });

  it('a token transfer of 0 to a deposit address (transfer, and transferFrom without allowance) records and announces nothing', async () => {
    const zero = await usdc.transfer(deposit, 0n);
    const zeroFrom = await honest.transferFrom(ANVIL_FUNDER, deposit, 0n, ATTACKER);
    const real = await usdc.transfer(deposit, 5_000_000n);
    await round();

    expect(await rowsOf(zero)).toEqual([]);
    expect(await rowsOf(zeroFrom)).toEqual([]);
    expect(await eventsOf(zero)).toEqual([]);
    expect(await eventsOf(zeroFrom)).toEqual([]);
    // The follower did read those blocks: the real transfer after them is credited.
    expect(await rowsOf(real)).toEqual([{ event_index: 1, amount: '5000000', status: 'confirmed', reason: null, to_address: deposit }]);
    expect(await withheld('zero_amount')).toBe(0); // dropped by detect itself: nothing reached the follower's guard
    expect(await receivedOf(zero)).toEqual([]);
    expect(await receivedOf(zeroFrom)).toEqual([]);
    expect((await receivedOf(real)).map((e) => [e.type, e.amount])).toEqual([
      ['deposit.detected', '5'],
      ['deposit.confirmed', '5'],
    ]);
    const listed = await api('GET', `/transactions?walletId=${walletId}`);
    expect(listed.body.transactions.some((x: { amount: string }) => /^0(\.0*)?$/.test(x.amount))).toBe(false);
  });

  it('a fee-on-transfer token logging the full amount is held pending (balance_mismatch), never available; an honest fee token is credited what arrived', async () => {
    const fot = await overstating.transfer(deposit, 100_000_000n);
    const net = await honest.transfer(deposit, 100_000_000n);
    expect(await overstating.balanceOf(deposit)).toBe(99_000_000n);
    await round();

    // The log said 100: the row keeps what was claimed, held, never confirmed.
    expect(await rowsOf(fot)).toEqual([
      { event_index: 1, amount: '100000000', status: 'pending', reason: 'balance_mismatch', to_address: deposit },
    ]);
    expect(await eventsOf(fot)).toEqual([{ type: 'deposit.detected', amount: '100', reason: 'balance_mismatch' }]);
    expect(await rowsOf(net)).toEqual([{ event_index: 1, amount: '99000000', status: 'confirmed', reason: null, to_address: deposit }]);
    expect((await eventsOf(net)).map((e) => [e.type, e.amount])).toEqual([
      ['deposit.detected', '99'],
      ['deposit.confirmed', '99'],
    ]);
    expect(await withheld('balance_mismatch')).toBe(1);
    expect(await receivedOf(fot)).toEqual([{ type: 'deposit.detected', amount: '100', reason: 'balance_mismatch' }]);

    // More rounds never confirm it.
    await round();
    expect((await rowsOf(fot))[0]).toMatchObject({ status: 'pending', reason: 'balance_mismatch' });
    expect((await receivedOf(fot)).map((e) => e.type)).toEqual(['deposit.detected']);

    expect(await balanceOf('FOT')).toMatchObject({ confirmed: '0', pending: '100', available: '0' });
    expect(await balanceOf('NET')).toMatchObject({ confirmed: '99', pending: '0', available: '99' });
    const shown = (await api('GET', `/transactions?search=${fot}`)).body.transactions;
    expect(shown.map((x: { status: string; reason: string | null }) => [x.status, x.reason])).toEqual([['pending', 'balance_mismatch']]);

    // The payout of 100 the log promised is refused: nothing of it is available.
    const payout = await api('POST', `/wallets/${walletId}/withdrawals`, {
      asset: 'FOT',
      toAddress: RECIPIENT,
      amount: '100',
      fromAddress: deposit,
      idempotencyKey: 'fot-100',
    });
    expect(payout.status).toBe(422);
    expect(payout.body).toMatchObject({ code: 'insufficient_funds' });
    expect(payout.body.message).toContain('holds too little FOT');
  });

  it('a withdrawal in the same block as a deposit is no mismatch: the outgoing log counts', async () => {
    // The deposit address holds 5 USDC (first test); in one block it receives 7 and sends 2.
    await anvil.rpc('anvil_impersonateAccount', [deposit]);
    await anvil.rpc('evm_setAutomine', [false]);
    const send = (from: string, to: string, amount: bigint) =>
      anvil.rpc<string>('eth_sendTransaction', [{ from, to: usdc.address, data: erc20.encodeFunctionData('transfer', [to, amount]) }]);
    const incoming = await send(ANVIL_FUNDER, deposit, 7_000_000n);
    const outgoing = await send(deposit, RECIPIENT, 2_000_000n);
    await anvil.mine(1);
    await anvil.rpc('evm_setAutomine', [true]);
    await anvil.rpc('anvil_stopImpersonatingAccount', [deposit]);
    const [a, b] = [await anvil.receipt(incoming), await anvil.receipt(outgoing)];
    expect([a.status, b.status, a.blockNumber === b.blockNumber]).toEqual(['0x1', '0x1', true]);
    await round();
    expect(await rowsOf(incoming)).toEqual([{ event_index: 1, amount: '7000000', status: 'confirmed', reason: null, to_address: deposit }]);
    expect(await withheld('balance_mismatch')).toBe(1);
  });
});
