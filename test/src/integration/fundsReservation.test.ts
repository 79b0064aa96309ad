import { randomBytes } from 'node:crypto';
import { type ChainSettings, MasterKey, fromBaseUnits } from '@walletd/core';
import { createDetectPool, type DetectPool, type Follower } from '@walletd/indexer';
import {
  type Anvil,
  type Seeded,
  type TestApp,
  type TestDatabase,
  type TestToken,
  call,
  createTestDatabase,
  deployTestToken,
  expectSchema,
  seedCompany,
  startAnvil,
  startTestApp,
  testFollower,
} from '@walletd/test-harness';

const ETH = 10n ** 18n;
const eth = (units: bigint) => fromBaseUnits(units, 18);
const units = (decimal: string) => {
  const [whole, fraction = ''] = decimal.split('.');
  return BigInt(`${whole}${fraction.padEnd(18, '0')}`);
};

/**
 * Funds are reserved from prepare until a withdrawal settles (issue 28): on anvil, through the
 * API, parallel payouts never promise more than the source holds, a later deposit pays nothing by
 * itself, each account pays only with what it holds, and the balance view never goes negative.
 */
describe('funds reservations on anvil', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  let pool: DetectPool;
  let usdc: TestToken;
  let app: TestApp;
  let s: Seeded;
  let follower: Follower;
  let walletId: number;
  let source: string;
  let second: string;
  const masterKey = new MasterKey(randomBytes(32));
  const recipient = '0x000000000000000000000000000000000000bEEF';

  const api = (method: string, path: string, body?: unknown) => call(app.url, method, `/v1${path}`, { key: s.rootKey, body });
  const prepare = (body: Record<string, unknown>) => api('POST', `/wallets/${walletId}/withdrawals`, body);
  const onNode = async (address: string) => BigInt(await anvil.rpc<string>('eth_getBalance', [address, 'latest']));
  const round = async (blocks = 1) => {
    await anvil.mine(blocks);
    await follower.tick();
  };
  const balances = async () => {
    const res = await api('GET', `/wallets/${walletId}/balances`);
    expect(res.status).toBe(200);
    expectSchema('Balances', res.body);
    const all = res.body.balances as {
      asset: { symbol: string };
      confirmed: string;
      pending: string;
      reserved: string;
      available: string;
    }[];
    // No figure is ever negative (the schema's pattern says so too).
    for (const b of all) for (const v of [b.confirmed, b.pending, b.reserved, b.available]) expect(v.startsWith('-')).toBe(false);
    return Object.fromEntries(all.map((b) => [b.asset.symbol, b]));
  };

  beforeAll(async () => {
    t = await createTestDatabase();
    anvil = await startAnvil();
    pool = createDetectPool(1);
    usdc = await deployTestToken(anvil, 'USD Coin', 'USDC', 6);
    const settings: ChainSettings = {
      chain: 'ethereum',
      network: 'devnet',
      rpcUrl: anvil.url,
      confirmations: 2,
      startBlock: 0,
      tokens: [{ contract: usdc.address, symbol: 'USDC', decimals: 6 }],
    };
    app = await startTestApp(t.db, { chains: [settings], rateLimit: { writesPerKeyPerMinute: 1000 } }, masterKey);
    follower = testFollower(t.db, pool, settings);
    s = await seedCompany(t.db);
    walletId = (await api('POST', '/wallets', { name: 'hot', chain: 'ethereum', network: 'devnet' })).body.id;
    source = (await api('POST', `/wallets/${walletId}/addresses`)).body.address;
    second = (await api('POST', `/wallets/${walletId}/addresses`)).body.address;
    await anvil.send(source, 1n * ETH);
    await round(2);
  });
  afterAll(async () => {
    await app.close();
    await pool.close();
    await anvil.stop();
    await t.drop();
  });

  it('five parallel 0.9 ETH payouts from 1 ETH: one is prepared, four refused naming what holds the funds; a later deposit pays nothing', async () => {
    expect((await balances()).ETH).toMatchObject({ confirmed: '1', pending: '0', reserved: '0', available: '1' });
    const tries = await Promise.all(
      [1, 2, 3, 4, 5].map((i) => prepare({ asset: 'ETH', toAddress: recipient, amount: '0.9', idempotencyKey: `par-${i}` })),
    );
    const won = tries.filter((r) => r.status === 201);
    const refused = tries.filter((r) => r.status === 422);
    expect(won).toHaveLength(1);
    expect(refused).toHaveLength(4);
    const winner = won[0]?.body as { id: number; fee: { amount: string } | null };
    const feeCap = BigInt((await t.db('withdrawals').where({ id: winner.id }).first()).unsigned_tx.fee);
    for (const r of refused) {
      expectSchema('ErrorBody', r.body);
      expect(r.body.code).toBe('insufficient_funds');
      expect(r.body.available).toBe(eth(ETH - units('0.9') - feeCap));
      expect(r.body.reservedBy).toBe(String(winner.id));
      expect(r.body.message).toContain(`reserved by withdrawals ${winner.id}`);
    }
    // Nothing was recorded for the refused ones.
    expect(await t.db('withdrawals').where({ wallet_id: walletId }).pluck('id')).toEqual([winner.id]);
    expect((await balances()).ETH).toMatchObject({
      confirmed: '1',
      reserved: eth(units('0.9') + feeCap),
      available: eth(ETH - units('0.9') - feeCap),
    });

    // Broadcast it (five callers at once: one transaction), then let it confirm.
    const sends = await Promise.all([1, 2, 3, 4, 5].map(() => api('POST', `/withdrawals/${winner.id}/broadcast`)));
    expect(sends.every((r) => r.status === 200)).toBe(true);
    expect(new Set(sends.map((r) => r.body.txHash)).size).toBe(1);
    await round(3);
    const done = await api('GET', `/withdrawals/${winner.id}`);
    expect(done.body.status).toBe('confirmed');
    const fee = units(done.body.fee.amount);
    expect(fee).toBeLessThanOrEqual(feeCap);
    expect((await balances()).ETH).toMatchObject({ confirmed: eth(ETH - units('0.9') - fee), reserved: '0' });
    expect(await onNode(recipient)).toBe(units('0.9'));

    // 2 ETH arrive later: no stale payout exists to take them.
    await anvil.send(source, 2n * ETH);
    await round(3);
    expect(await onNode(recipient)).toBe(units('0.9'));
    expect((await balances()).ETH).toMatchObject({ confirmed: eth(3n * ETH - units('0.9') - fee), reserved: '0' });
  });

  it('each account pays only with what it holds: the wallet total is no source; a token payout reserves its fee in ETH', async () => {
    await anvil.send(second, ETH / 10n);
    await usdc.mint(second, 5_000_000n);
    await round(2);
    // The node would take each of these (`second` holds 0.1 ETH); the second one does not fit beside the first.
    const first = await prepare({ asset: 'ETH', toAddress: recipient, amount: '0.06', fromAddress: second, idempotencyKey: 'acct-1' });
    expect(first.status).toBe(201);
    const firstCap = BigInt((await t.db('withdrawals').where({ id: first.body.id }).first()).unsigned_tx.fee);
    const tooMuch = await prepare({ asset: 'ETH', toAddress: recipient, amount: '0.06', fromAddress: second, idempotencyKey: 'acct-1b' });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.body).toMatchObject({
      code: 'insufficient_funds',
      available: eth(ETH / 10n - units('0.06') - firstCap),
      reservedBy: String(first.body.id),
    });
    expect(tooMuch.body.message).toContain(second);
    // The wallet as a whole holds over 2 ETH more, at `source`: no help to `second`.
    expect(units((await balances()).ETH?.available ?? '0')).toBeGreaterThan(2n * ETH);
    expect((await api('POST', `/withdrawals/${first.body.id}/cancel`)).status).toBe(200);

    // A USDC payout from `second` holds its fee cap on `second`'s ETH: what is left for ETH shrinks by it.
    const token = await prepare({ asset: 'USDC', toAddress: recipient, amount: '5', fromAddress: second, idempotencyKey: 'acct-2' });
    expect(token.status).toBe(201);
    const tokenFeeCap = BigInt((await t.db('withdrawals').where({ id: token.body.id }).first()).unsigned_tx.fee);
    const b = await balances();
    expect(b.USDC).toMatchObject({ confirmed: '5', reserved: '5', available: '0' });
    expect(b.ETH?.reserved).toBe(eth(tokenFeeCap));
    // Exactly what is left on `second` after the fee cap, and not a base unit more.
    const left = ETH / 10n - tokenFeeCap;
    const again = await prepare({ asset: 'USDC', toAddress: recipient, amount: '0.000001', fromAddress: second, idempotencyKey: 'acct-3' });
    expect(again.body).toMatchObject({ code: 'insufficient_funds', available: '0', reservedBy: String(token.body.id) });
    const ethOut = await prepare({ asset: 'ETH', toAddress: recipient, amount: eth(left), fromAddress: second, idempotencyKey: 'acct-4' });
    expect(ethOut.status).toBe(422); // its own fee does not fit
    expect(ethOut.body.available).toBe(eth(left));

    // Cancelling the token payout gives its reservation back.
    expect((await api('POST', `/withdrawals/${token.body.id}/cancel`)).status).toBe(200);
    expect((await balances()).USDC).toMatchObject({ reserved: '0', available: '5' });
  });

  it('an internal movement credits the receiving address once it confirms, and never counts as a deposit', async () => {
    const before = await balances();
    const moved = await prepare({ asset: 'ETH', toAddress: second, amount: '1', fromAddress: source, idempotencyKey: 'internal-1' });
    expect(moved.body.message).toBeUndefined();
    expect(moved.status).toBe(201);
    expect((await api('POST', `/withdrawals/${moved.body.id}/broadcast`)).status).toBe(200);
    await round(3);
    const done = await api('GET', `/withdrawals/${moved.body.id}`);
    expect(done.body.status).toBe('confirmed');
    const fee = units(done.body.fee.amount);
    // The wallet lost only the fee; `second` can now pay 1 ETH more than it could.
    expect((await balances()).ETH?.confirmed).toBe(eth(units(before.ETH?.confirmed ?? '0') - fee));
    const fromSecond = await prepare({
      asset: 'ETH',
      toAddress: recipient,
      amount: '1',
      fromAddress: second,
      idempotencyKey: 'internal-2',
    });
    expect(fromSecond.status).toBe(201);
    expect(await t.db('transfers').where({ tx_hash: done.body.txHash }).pluck('id')).toEqual([]);
  });

  it('never hands the node a signed payout its source no longer covers (a credited deposit retracted after signing)', async () => {
    const third = (await api('POST', `/wallets/${walletId}/addresses`)).body.address as string;
    const hash = await anvil.send(third, ETH / 2n);
    await round(2);
    const prepared = await prepare({ asset: 'ETH', toAddress: recipient, amount: '0.4', fromAddress: third, idempotencyKey: 'retract-1' });
    expect(prepared.status).toBe(201);
    expect((await api('POST', `/withdrawals/${prepared.body.id}/sign`)).status).toBe(200);
    // What a reorg deeper than the threshold does to the deposit's row.
    await t.db('transfers').where({ tx_hash: hash }).update({ status: 'rejected', reason: 'reorg' });
    const nonce = await anvil.rpc<string>('eth_getTransactionCount', [third, 'pending']);
    const sent = await api('POST', `/withdrawals/${prepared.body.id}/broadcast`);
    expect(sent.status).toBe(422);
    expect(sent.body).toMatchObject({ code: 'insufficient_funds', available: '0' });
    expect(await anvil.rpc<string>('eth_getTransactionCount', [third, 'pending'])).toBe(nonce);
    expect((await api('GET', `/withdrawals/${prepared.body.id}`)).body.status).toBe('signed');
    // The credit back (the deposit mined again): the same signed transaction goes out.
    await t.db('transfers').where({ tx_hash: hash }).update({ status: 'confirmed', reason: null });
    expect((await api('POST', `/withdrawals/${prepared.body.id}/broadcast`)).body.status).toBe('broadcast');
  });

  it('the same idempotency key sent five times at once is one withdrawal, never a refusal for the funds it holds', async () => {
    const fourth = (await api('POST', `/wallets/${walletId}/addresses`)).body.address as string;
    await anvil.send(fourth, ETH);
    await round(2);
    const body = { asset: 'ETH', toAddress: recipient, amount: '0.9', fromAddress: fourth, idempotencyKey: 'same-key' };
    const tries = await Promise.all([1, 2, 3, 4, 5].map(() => prepare(body)));
    expect(tries.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 201]);
    expect(new Set(tries.map((r) => r.body.id)).size).toBe(1);
  });
});
