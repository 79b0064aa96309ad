import { randomBytes } from 'node:crypto';
import { type ChainSettings, MasterKey, fromBaseUnits, toBaseUnits } from '@walletd/core';
import { createDetectPool, type DetectPool, type Follower } from '@walletd/indexer';
import {
  type Anvil,
  type Seeded,
  type TestApp,
  type TestDatabase,
  call,
  createTestDatabase,
  eventually,
  expectSchema,
  seedCompany,
  startAnvil,
  startTestApp,
  testFollower,
} from '@walletd/test-harness';

const eth = (units: bigint) => fromBaseUnits(units, 18);
const wei = (s: string) => toBaseUnits(s, 18);
const DEAD = '0x000000000000000000000000000000000000dEaD';

/**
 * Issue 46 on anvil (automine off, blocks mined by the test): a payout priced under a raised base
 * fee stays broadcast; a speed-up lands it (and the payout queued behind its nonce); an on-chain
 * cancel lands a zero-value replacement and releases the amount; parallel replacements of one
 * transaction give exactly one; the wallet's balances are exact at every step.
 */
describe('stuck EVM payouts: speed-up and cancel on the same nonce', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  let pool: DetectPool;
  let app: TestApp;
  let s: Seeded;
  let follower: Follower;
  let walletId: number;
  let credited = 5n * 10n ** 18n;
  const api = (method: string, path: string, body?: unknown) => call(app.url, method, `/v1${path}`, { key: s.rootKey, body });
  const round = async (blocks: number) => {
    await anvil.mine(blocks);
    await follower.tick();
  };
  const balances = async () => {
    const res = await api('GET', `/wallets/${walletId}/balances`);
    expect(res.status).toBe(200);
    const b = (res.body.balances as { asset: { symbol: string }; confirmed: string; reserved: string }[]).find(
      (x) => x.asset.symbol === 'ETH',
    );
    return { confirmed: b?.confirmed, reserved: b?.reserved };
  };
  const feePaid = async (hash: string) => {
    const r = await anvil.rpc<{ gasUsed: string; effectiveGasPrice: string } | null>('eth_getTransactionReceipt', [hash]);
    if (!r) throw new TypeError(`no receipt for ${hash}`);
    return BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice);
  };
  const get = async (id: number) => {
    const res = await api('GET', `/withdrawals/${id}`);
    expectSchema('Withdrawal', res.body);
    return res.body;
  };
  /** A payout broadcast now, then a block whose base fee is far above its max fee: it stays in the pool. */
  const stuckPayout = async (key: string, amount: string) => {
    const prepared = await api('POST', `/wallets/${walletId}/withdrawals`, { asset: 'ETH', toAddress: DEAD, amount, idempotencyKey: key });
    expect(prepared.status).toBe(201);
    const sent = await api('POST', `/withdrawals/${prepared.body.id}/broadcast`);
    expect(sent.body.status).toBe('broadcast');
    return { id: prepared.body.id as number, txHash: sent.body.txHash as string, feeCap: wei(sent.body.feeEstimate.amount) };
  };
  const underprice = async () => {
    const { baseFeePerGas } = await anvil.rpc<{ baseFeePerGas: string }>('eth_getBlockByNumber', ['latest', false]);
    await anvil.rpc('anvil_setNextBlockBaseFeePerGas', [`0x${(BigInt(baseFeePerGas) * 20n + 10n ** 10n).toString(16)}`]);
    await round(1);
  };

  beforeAll(async () => {
    t = await createTestDatabase();
    anvil = await startAnvil();
    pool = createDetectPool(1);
    const settings: ChainSettings = { chain: 'ethereum', network: 'devnet', rpcUrl: anvil.url, confirmations: 2, startBlock: 0 };
    app = await startTestApp(t.db, { chains: [settings], rateLimit: { writesPerKeyPerMinute: 1000 } }, new MasterKey(randomBytes(32)));
    follower = testFollower(t.db, pool, settings);
    s = await seedCompany(t.db);
    walletId = (await api('POST', '/wallets', { name: 'hot', chain: 'ethereum', network: 'devnet' })).body.id;
    const address = (await api('POST', `/wallets/${walletId}/addresses`)).body.address;
    await anvil.send(address, credited);
    await round(2);
    await anvil.rpc('evm_setAutomine', [false]);
  });
  afterAll(async () => {
    await app.close();
    await pool.close();
    await anvil.stop();
    await t.drop();
  });

  it('a speed-up lands the stuck payout once, with its own hash and fee, and the payout behind it lands too', async () => {
    const a = await stuckPayout('a', '0.1');
    await underprice();
    const b = await stuckPayout('b', '0.2');
    await round(2);
    expect((await get(a.id)).status).toBe('broadcast');
    expect((await get(b.id)).status).toBe('broadcast');
    // The list and the detail say which payout holds the one queued behind its nonce.
    expect((await get(b.id)).blockedBy).toBe(a.id);
    expect((await get(a.id)).blockedBy).toBeUndefined();
    const listed = (await api('GET', `/wallets/${walletId}/withdrawals`)).body.withdrawals as { id: number; blockedBy?: number }[];
    expect(listed.find((w) => w.id === b.id)?.blockedBy).toBe(a.id);
    const bCap = wei((await get(b.id)).feeEstimate.amount);
    expect(await balances()).toEqual({ confirmed: eth(credited), reserved: eth(wei('0.3') + a.feeCap + bCap) });

    // Two parallel speed-ups of the same transaction: one replacement, the other call told so.
    const [x, y] = await Promise.all([0, 1].map(() => api('POST', `/withdrawals/${a.id}/speed-up`, { replaces: a.txHash })));
    expect([x?.status, y?.status].sort()).toEqual([200, 409]);
    const sped = (await get(a.id)) as { attempts: { txHash: string; kind: string; feeCap: { amount: string } }[] };
    expect(sped.attempts.map((at) => at.kind)).toEqual(['original', 'speed_up']);
    const replacement = sped.attempts[1]!;
    expect(replacement.txHash).not.toBe(a.txHash);
    const newCap = wei(replacement.feeCap.amount);
    expect(newCap).toBeGreaterThan(a.feeCap);
    // The reservation grew to the new cap.
    expect(await balances()).toEqual({ confirmed: eth(credited), reserved: eth(wei('0.3') + newCap + bCap) });

    await round(1);
    await round(2);
    const landed = await get(a.id);
    expect(landed).toMatchObject({ status: 'confirmed', txHash: replacement.txHash });
    const feeA = await feePaid(replacement.txHash);
    expect(wei(landed.fee.amount)).toBe(feeA);
    const behind = await get(b.id);
    expect(behind.status).toBe('confirmed');
    expect(behind.blockedBy).toBeUndefined();
    const feeB = await feePaid(behind.txHash);
    credited -= wei('0.3') + feeA + feeB;
    expect(await balances()).toEqual({ confirmed: eth(credited), reserved: '0' });
    // The original never landed, and is never reported as paid.
    expect(await anvil.rpc('eth_getTransactionReceipt', [a.txHash])).toBeNull();
    // The feed lists an event once every older transaction of the cluster has ended (commit order,
    // `events.xid < xmin`): under a full run other files' transactions on the shared cluster can
    // hold the newest back for a moment, so it is read until both are there (or 20 s).
    const broadcasts = async () =>
      (
        (await api('GET', '/events?types=withdrawal.broadcast')).body.events as {
          data: { withdrawalId: number; txHash: string };
        }[]
      )
        .filter((e) => e.data.withdrawalId === a.id)
        .map((e) => e.data.txHash);
    expect(await eventually(broadcasts, (hashes) => hashes.length >= 2)).toEqual([a.txHash, replacement.txHash]);
  });

  it('a cancel lands a zero-value transfer to the source: rejected cancelled_onchain, amount released, fee paid', async () => {
    const c = await stuckPayout('c', '0.4');
    await underprice();
    // A speed-up and a cancel at once, both of the original: exactly one replacement.
    const answers = await Promise.all([
      api('POST', `/withdrawals/${c.id}/speed-up`, { replaces: c.txHash }),
      api('POST', `/withdrawals/${c.id}/cancel-onchain`, { replaces: c.txHash }),
    ]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
    let view = await get(c.id);
    expect(view.attempts).toHaveLength(2);
    if (view.attempts[1].kind === 'speed_up') {
      const again = await api('POST', `/withdrawals/${c.id}/cancel-onchain`, { replaces: view.attempts[1].txHash });
      expect(again.status).toBe(200);
      view = await get(c.id);
    }
    const cancel = view.attempts.at(-1) as { txHash: string; kind: string; feeCap: { amount: string } };
    expect(cancel.kind).toBe('cancel');
    // A speed-up after the cancel is refused; the cancel again changes nothing.
    expect((await api('POST', `/withdrawals/${c.id}/speed-up`)).status).toBe(409);
    expect((await api('POST', `/withdrawals/${c.id}/cancel-onchain`)).body.attempts).toHaveLength(view.attempts.length);
    // Only one lands: the payout (0.4 plus its highest fee cap) or the cancel (its fee cap, far less): the larger is held.
    const payoutCap = view.attempts
      .filter((a: { kind: string }) => a.kind !== 'cancel')
      .map((a: { feeCap: { amount: string } }) => wei(a.feeCap.amount))
      .reduce((a: bigint, b: bigint) => (b > a ? b : a), 0n);
    expect(wei(cancel.feeCap.amount)).toBeLessThan(wei('0.4'));
    expect(await balances()).toEqual({ confirmed: eth(credited), reserved: eth(wei('0.4') + payoutCap) });

    const deadBefore = BigInt(await anvil.rpc<string>('eth_getBalance', [DEAD, 'latest']));
    await round(1);
    await round(2);
    const ended = await get(c.id);
    expect(ended).toMatchObject({ status: 'rejected', reason: 'cancelled_onchain', txHash: cancel.txHash });
    const fee = await feePaid(cancel.txHash);
    expect(wei(ended.fee.amount)).toBe(fee);
    expect(BigInt(await anvil.rpc<string>('eth_getBalance', [DEAD, 'latest']))).toBe(deadBefore);
    credited -= fee;
    expect(await balances()).toEqual({ confirmed: eth(credited), reserved: '0' });
  });

  it('a reorg that brings back the original instead of the speed-up confirms with the original hash and fee', async () => {
    const e = await stuckPayout('e', '0.05');
    await underprice();
    // The original's signed bytes, as walletd stored them (anvil does not serve a pending one's raw form).
    const { signed_tx: raw } = await t.db('withdrawals').where({ id: e.id }).first('signed_tx');
    const snapshot = await anvil.rpc<string>('evm_snapshot');
    const sped = await api('POST', `/withdrawals/${e.id}/speed-up`, { replaces: e.txHash });
    expect(sped.status).toBe(200);
    const replacement = sped.body.attempts[1].txHash as string;
    await round(1);
    await round(2);
    expect(await get(e.id)).toMatchObject({ status: 'confirmed', txHash: replacement });

    // The chain goes back to before the speed-up was mined; the original lands on the new chain instead.
    await anvil.rpc('evm_revert', [snapshot]);
    await anvil.rpc('anvil_dropTransaction', [replacement]);
    await anvil.rpc('anvil_setNextBlockBaseFeePerGas', ['0x1']);
    await anvil.mine(1);
    if (!(await anvil.rpc('eth_getTransactionByHash', [e.txHash]))) await anvil.rpc('eth_sendRawTransaction', [raw]);
    await round(5);
    await round(1);
    const ended = await get(e.id);
    expect(ended).toMatchObject({ status: 'confirmed', txHash: e.txHash });
    const fee = await feePaid(e.txHash);
    expect(wei(ended.fee.amount)).toBe(fee);
    expect(await anvil.rpc('eth_getTransactionReceipt', [replacement])).toBeNull();
    credited -= wei('0.05') + fee;
    expect(await balances()).toEqual({ confirmed: eth(credited), reserved: '0' });
  });

  it('a reorg that takes the cancel out of its block and brings back the payout: confirmed, the amount paid', async () => {
    const f = await stuckPayout('f', '0.03');
    await underprice();
    const { signed_tx: raw } = await t.db('withdrawals').where({ id: f.id }).first('signed_tx');
    const snapshot = await anvil.rpc<string>('evm_snapshot');
    const cancelled = await api('POST', `/withdrawals/${f.id}/cancel-onchain`, { replaces: f.txHash });
    const cancel = cancelled.body.attempts[1].txHash as string;
    await round(1);
    await round(2);
    expect(await get(f.id)).toMatchObject({ status: 'rejected', reason: 'cancelled_onchain', txHash: cancel });

    await anvil.rpc('evm_revert', [snapshot]);
    await anvil.rpc('anvil_dropTransaction', [cancel]);
    await anvil.rpc('anvil_setNextBlockBaseFeePerGas', ['0x1']);
    await anvil.mine(1);
    if (!(await anvil.rpc('eth_getTransactionByHash', [f.txHash]))) await anvil.rpc('eth_sendRawTransaction', [raw]);
    await round(5);
    await round(1);
    const ended = await get(f.id);
    expect(ended).toMatchObject({ status: 'confirmed', txHash: f.txHash, reason: null });
    expect(ended.history.map((h: { status: string }) => h.status)).toEqual(
      expect.arrayContaining(['cancel_onchain', 'rejected', 'broadcast', 'confirmed']),
    );
    const fee = await feePaid(f.txHash);
    expect(wei(ended.fee.amount)).toBe(fee);
    credited -= wei('0.03') + fee;
    expect(await balances()).toEqual({ confirmed: eth(credited), reserved: '0' });
  });

  it('two parallel speed-ups that name no transaction make one replacement; after a new block another may', async () => {
    const g = await stuckPayout('g', '0.02');
    await underprice();
    const first = await api('POST', `/withdrawals/${g.id}/speed-up`, { replaces: g.txHash });
    expect(first.status).toBe(200);
    // The speed-up was not mined (a base fee far above it again), and no block was indexed since it.
    const [x, y] = await Promise.all([0, 1].map(() => api('POST', `/withdrawals/${g.id}/speed-up`)));
    expect([x?.status, y?.status]).toEqual([200, 200]);
    expect((await get(g.id)).attempts.map((a: { kind: string }) => a.kind)).toEqual(['original', 'speed_up']);
    await underprice();
    const again = await api('POST', `/withdrawals/${g.id}/speed-up`);
    expect(again.body.attempts.map((a: { kind: string }) => a.kind)).toEqual(['original', 'speed_up', 'speed_up']);
    await anvil.rpc('anvil_setNextBlockBaseFeePerGas', ['0x1']);
    await round(3);
    const landed = await get(g.id);
    expect(landed).toMatchObject({ status: 'confirmed', txHash: again.body.attempts[2].txHash });
    credited -= wei('0.02') + (await feePaid(landed.txHash));
    expect(await balances()).toEqual({ confirmed: eth(credited), reserved: '0' });
  });

  it('refuses what cannot be replaced: a confirmed withdrawal (409), a cap below the replacement rule (422)', async () => {
    const d = await stuckPayout('d', '0.01');
    const low = await api('POST', `/withdrawals/${d.id}/speed-up`, { maxFeePerGas: '1' });
    expect(low.status).toBe(422);
    await round(3);
    expect((await get(d.id)).status).toBe('confirmed');
    const late = await api('POST', `/withdrawals/${d.id}/speed-up`);
    expect(late.status).toBe(409);
    expect(late.body.message).toMatch(/is confirmed; only a broadcast withdrawal can be replaced/);
  });
});
