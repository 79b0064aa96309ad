import { fromBaseUnits } from '@walletd/core';
import {
  type Anvil,
  GENUINE,
  type Seeded,
  type TestDatabase,
  type TestReceiver,
  type TestToken,
  type WalletdProcess,
  call,
  createTestDatabase,
  deployPayouts,
  deployTestToken,
  eventually,
  serveWithConfig,
  seedCompany,
  signatureChecks,
  startAnvil,
  startReceiver,
} from '@walletd/test-harness';

interface Envelope {
  id: string;
  type: string;
  data: {
    txHash: string;
    amount: string;
    toAddress?: string;
    status: string;
    reason?: string;
    withdrawalId?: number;
    eventType?: string;
    eventIndex?: number;
  };
}

/**
 * EVM from node to receiver: the real `walletd serve` indexing anvil (3 confirmations) with an
 * allow-listed ERC-20, one webhook for every event, a real receiver verifying each request with
 * @walletd/receiver. Deposits of ETH and the token arrive detected then confirmed, and a balance
 * read in between credits nothing; a token payout that reverts on chain (the token is paused
 * after the withdrawal was signed) reaches the receiver as withdrawal.rejected, failed_on_chain;
 * native coins a contract pays out (read from the block's call traces) arrive like any deposit.
 */
describe('walletd serve on anvil: deposits and a reverted payout reach the receiver', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  let usdc: TestToken;
  let rx: TestReceiver;
  let proc: WalletdProcess;
  let base: string;
  let s: Seeded;
  let secret: string;
  let walletId: number;
  let source: string;
  const recipient = '0x000000000000000000000000000000000000dEaD';

  const api = (method: string, path: string, body?: unknown) => call(base, method, `/v1${path}`, { key: s.rootKey, body });
  const received = () => rx.requests.map((r) => JSON.parse(r.rawBody) as Envelope);
  const balances = async () =>
    Object.fromEntries(
      ((await api('GET', `/wallets/${walletId}/balances`)).body.balances as { asset: { symbol: string }; [k: string]: unknown }[]).map(
        ({ asset, confirmed, pending, reserved, available }) => [asset.symbol, { confirmed, pending, reserved, available }],
      ),
    );

  beforeAll(async () => {
    t = await createTestDatabase();
    anvil = await startAnvil();
    usdc = await deployTestToken(anvil, 'USD Coin', 'USDC', 6);
    rx = await startReceiver();
    ({ proc, base } = await serveWithConfig(t.url, {
      bootstrap: false,
      devnet: { enabled: false },
      webhooks: { allowCidrs: ['127.0.0.0/8'], pollIntervalMs: 100 },
      chains: [
        {
          chain: 'ethereum',
          network: 'devnet',
          rpcUrl: anvil.url,
          confirmations: 3,
          startBlock: 0,
          pollIntervalMs: 100,
          tokens: [{ contract: usdc.address, symbol: 'USDC', decimals: 6 }],
        },
      ],
    }));
    s = await seedCompany(t.db);
    const hook = await api('POST', '/webhooks', { type: 'api', config: { url: `${rx.url}/hook` }, events: ['*'] });
    expect(hook.status).toBe(201);
    secret = hook.body.signingSecret;
    walletId = (await api('POST', '/wallets', { name: 'hot', chain: 'ethereum', network: 'devnet' })).body.id;
    source = (await api('POST', `/wallets/${walletId}/addresses`)).body.address;
  });
  afterAll(async () => {
    proc?.child.kill('SIGTERM');
    await proc?.exited;
    await rx?.close();
    await anvil?.stop();
    await t?.drop();
  });

  it('deposits of ETH and USDC arrive detected then confirmed; while pending nothing is credited or spendable', async () => {
    const ethTx = await anvil.send(source, 1_500_000_000_000_000_000n);
    const usdcTx = await usdc.mint(source, 250_000_000n);
    // Two blocks: the ETH deposit has 2 confirmations of 3, the USDC one 1; no block comes until the test mines one.
    const detected = await eventually(
      async () => received().filter((e) => e.type === 'deposit.detected'),
      (l) => l.length === 2,
    );
    // Sorted: two events may be posted concurrently, so they can arrive in either order.
    expect(detected.map((e) => [e.data.txHash, e.data.amount, e.data.status]).sort()).toEqual(
      [
        [ethTx, '1.5', 'pending'],
        [usdcTx, '250', 'pending'],
      ].sort(),
    );
    expect(await balances()).toEqual({
      ETH: { confirmed: '0', pending: '1.5', reserved: '0', available: '0' },
      USDC: { confirmed: '0', pending: '250', reserved: '0', available: '0' },
    });
    const early = await api('POST', `/wallets/${walletId}/withdrawals`, {
      asset: 'USDC',
      toAddress: recipient,
      amount: '1',
      idempotencyKey: 'too-early',
    });
    expect(early.status).toBe(422);
    expect(early.body.code).toBe('insufficient_funds');

    await anvil.mine(2);
    const all = await eventually(
      async () => received(),
      (l) => l.filter((e) => e.type === 'deposit.confirmed').length === 2,
    );
    const of = (tx: string) => all.filter((e) => e.data.txHash === tx).map((e) => [e.type, e.data.amount, e.data.toAddress]);
    expect(of(ethTx)).toEqual([
      ['deposit.detected', '1.5', source],
      ['deposit.confirmed', '1.5', source],
    ]);
    expect(of(usdcTx)).toEqual([
      ['deposit.detected', '250', source],
      ['deposit.confirmed', '250', source],
    ]);
    expect(await balances()).toEqual({
      ETH: { confirmed: '1.5', pending: '0', reserved: '0', available: '1.5' },
      USDC: { confirmed: '250', pending: '0', reserved: '0', available: '250' },
    });
    for (const r of rx.requests) expect(signatureChecks(r, secret)).toEqual(GENUINE);
  });

  it('a token payout that reverts on chain reaches the receiver as withdrawal.rejected, failed_on_chain (after the first test credited the source)', async () => {
    const prepared = await api('POST', `/wallets/${walletId}/withdrawals`, {
      asset: 'USDC',
      toAddress: recipient,
      amount: '2',
      idempotencyKey: 'reverts-1',
    });
    expect(prepared.status).toBe(201);
    const id = prepared.body.id as number;
    const signed = await api('POST', `/withdrawals/${id}/sign`);
    expect(signed.body.status).toBe('signed');
    // Paused between signing and sending: the signed transfer is valid but reverts when executed.
    await usdc.setQuirks({ paused: true });
    const sent = await api('POST', `/withdrawals/${id}/broadcast`);
    expect(sent.status).toBe(200);
    const receipt = await anvil.rpc<{ status: string; gasUsed: string; effectiveGasPrice: string }>('eth_getTransactionReceipt', [
      signed.body.txHash,
    ]);
    expect(receipt.status).toBe('0x0');
    await anvil.mine(1);
    const events = await eventually(
      async () => received().filter((e) => e.data.withdrawalId === id),
      (l) => l.some((e) => e.type === 'withdrawal.rejected'),
    );
    expect(events.map((e) => [e.type, e.data.status, e.data.reason, e.data.txHash, e.data.amount]).sort()).toEqual([
      ['withdrawal.broadcast', 'broadcast', undefined, signed.body.txHash, '2'],
      ['withdrawal.rejected', 'rejected', 'failed_on_chain', signed.body.txHash, '2'],
    ]);
    for (const r of rx.requests) expect(signatureChecks(r, secret)).toEqual(GENUINE);
    // Nothing paid, the burnt fee counted, the reservation released.
    const fee = BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice);
    expect((await api('GET', `/withdrawals/${id}`)).body).toMatchObject({
      status: 'rejected',
      reason: 'failed_on_chain',
      fee: { amount: fromBaseUnits(fee, 18) },
    });
    expect(await balances()).toEqual({
      ETH: {
        confirmed: fromBaseUnits(1_500_000_000_000_000_000n - fee, 18),
        pending: '0',
        reserved: '0',
        available: fromBaseUnits(1_500_000_000_000_000_000n - fee, 18),
      },
      USDC: { confirmed: '250', pending: '0', reserved: '0', available: '250' },
    });
  });

  it('native coins a contract pays out in one batch reach the receiver detected then confirmed, one event per recipient (issue 41)', async () => {
    const payouts = await deployPayouts(anvil);
    const a = (await api('POST', `/wallets/${walletId}/addresses`)).body.address as string;
    const b = (await api('POST', `/wallets/${walletId}/addresses`)).body.address as string;
    const batch = await payouts.batch([a, b], [3_000_000_000_000_000n, 4_000_000_000_000_000n]);
    await anvil.mine(2);
    const got = await eventually(
      async () => received().filter((e) => e.data.txHash === batch),
      (l) => l.filter((e) => e.type === 'deposit.confirmed').length === 2,
    );
    expect(got.map((e) => [e.type, e.data.toAddress, e.data.amount, e.data.eventType, e.data.eventIndex]).sort()).toEqual(
      [
        ['deposit.detected', a, '0.003', 'internal_transfer', 2 ** 30 + 1],
        ['deposit.detected', b, '0.004', 'internal_transfer', 2 ** 30 + 2],
        ['deposit.confirmed', a, '0.003', 'internal_transfer', 2 ** 30 + 1],
        ['deposit.confirmed', b, '0.004', 'internal_transfer', 2 ** 30 + 2],
      ].sort(),
    );
    for (const r of rx.requests) expect(signatureChecks(r, secret)).toEqual(GENUINE);
  });
});
