import { randomBytes } from 'node:crypto';
import { type ChainSettings, MasterKey, createLogger, createMetrics } from '@walletd/core';
import { createDetectPool, createFollower, type DetectPool, type Follower } from '@walletd/indexer';
import { validator } from '@walletd/schemas';
import { loadPlugins } from '@walletd/server';
import {
  type Anvil,
  type Seeded,
  type TestApp,
  type TestDatabase,
  call,
  createTestDatabase,
  wholeFeed,
  seedCompany,
  startAnvil,
  startTestApp,
} from '@walletd/test-harness';

/**
 * A reorg deeper than the confirmation threshold on anvil (issue 41 §2): `evm_snapshot` before the
 * transaction, confirmed past the threshold, `evm_revert` and a longer chain without it. What was
 * confirmed and is no longer in the chain is retracted and announced; what lands again is confirmed
 * again, announced once.
 */
describe('a reorg deeper than the confirmation threshold', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  let pool: DetectPool;
  let app: TestApp;
  let s: Seeded;
  let follower: Follower;
  const metrics = createMetrics();
  const api = (method: string, path: string, body?: unknown) => call(app.url, method, `/v1${path}`, { key: s.rootKey, body });
  const round = async (blocks: number) => {
    await anvil.mine(blocks);
    await follower.tick();
  };
  const eth = async (walletId: number) =>
    (await api('GET', `/wallets/${walletId}/balances`)).body.balances.find(
      (b: { asset: { symbol: string } }) => b.asset.symbol === 'ETH',
    ) as { confirmed: string; available: string; pending: string; reserved: string } | undefined;
  type FeedEvent = { type: string; data: Record<string, unknown> };
  const feed = () => wholeFeed(t.db, s.companyId, async () => (await api('GET', '/events?limit=1000')).body.events as FeedEvent[]);
  /** The events of one transaction, as the events API lists them. */
  const eventsOf = async (txHash: string) => (await feed()).filter((e) => e.data.txHash === txHash);
  /** An ETH decimal string in wei. */
  const wei = (decimal: string) => {
    const [whole, frac = ''] = decimal.split('.');
    return BigInt(whole ?? '0') * 10n ** 18n + BigInt(frac.padEnd(18, '0'));
  };
  const newAddress = async () => {
    const walletId = (
      await api('POST', '/wallets', { name: `hot-${randomBytes(3).toString('hex')}`, chain: 'ethereum', network: 'devnet' })
    ).body.id as number;
    const address = (await api('POST', `/wallets/${walletId}/addresses`)).body.address as string;
    return { walletId, address };
  };

  beforeAll(async () => {
    t = await createTestDatabase();
    anvil = await startAnvil();
    pool = createDetectPool(1);
    const settings: ChainSettings = { chain: 'ethereum', network: 'devnet', rpcUrl: anvil.url, confirmations: 2, startBlock: 0 };
    app = await startTestApp(t.db, { chains: [settings], rateLimit: { writesPerKeyPerMinute: 1000 } }, new MasterKey(randomBytes(32)));
    const plugin = loadPlugins().forChain('ethereum');
    if (!plugin) throw new Error('no ethereum plugin');
    follower = createFollower({ db: t.db, logger: createLogger({ level: 'silent' }), pool, metrics, plugin, settings });
    s = await seedCompany(t.db);
  });
  afterAll(async () => {
    await app.close();
    await pool.close();
    await anvil.stop();
    await t.drop();
  });

  it('retracts a confirmed deposit the new chain does not hold: deposit.rejected, previousStatus confirmed, balances drop', async () => {
    const { walletId, address } = await newAddress();
    await follower.tick();
    const snapshot = await anvil.rpc<string>('evm_snapshot');
    const tx = await anvil.send(address, 60_000_000_000_000_000n);
    await round(2);
    expect((await eventsOf(tx)).map((e) => e.type)).toEqual(['deposit.detected', 'deposit.confirmed']);
    expect(await eth(walletId)).toMatchObject({ confirmed: '0.06', available: '0.06' });

    await anvil.rpc('evm_revert', [snapshot]);
    await anvil.mine(6);
    await follower.tick();

    const events = await eventsOf(tx);
    expect(events.map((e) => e.type)).toEqual(['deposit.detected', 'deposit.confirmed', 'deposit.rejected']);
    expect(events[2]?.data).toMatchObject({
      status: 'rejected',
      reason: 'reorg',
      previousStatus: 'confirmed',
      amount: '0.06',
      confirmations: 0,
    });
    expect(validator('DepositEventData')(events[2]?.data)).toBe(true);
    expect(await eth(walletId)).toMatchObject({ confirmed: '0', available: '0', pending: '0' });
    // The record describes no block, and its confirmations do not count on with the chain.
    await round(3);
    const listed = (await api('GET', `/transactions?walletId=${walletId}`)).body.transactions as Record<string, unknown>[];
    expect(listed.find((x) => x.txHash === tx)).toMatchObject({ status: 'rejected', confirmations: 0, blockNumber: null });
    // The operator is told: an audit row naming the transfer, and the metric.
    const [row] = await t.db('transfers').where({ tx_hash: tx }).select('id');
    const audits = (await t.db('audit_log').where({ action: 'chain.deep_reorg' }).pluck('details')) as { retractedTransfers: number[] }[];
    expect(audits.some((d) => d.retractedTransfers.includes(Number(row.id)))).toBe(true);
    expect(await metrics.registry.metrics()).toMatch(
      /walletd_deep_reorg_retractions_total\{chain="ethereum",network="devnet",kind="deposit"\} [1-9]/,
    );
  });

  it('re-attaches a confirmed deposit mined again on the new chain: still confirmed, announced once, its new block', async () => {
    const { walletId, address } = await newAddress();
    await follower.tick();
    const snapshot = await anvil.rpc<string>('evm_snapshot');
    const tx = await anvil.send(address, 70_000_000_000_000_000n);
    const raw = await anvil.rpc<string>('eth_getRawTransactionByHash', [tx]);
    await round(2);
    await anvil.rpc('evm_revert', [snapshot]);
    await anvil.mine(3);
    await anvil.rpc('eth_sendRawTransaction', [raw]);
    const mined = BigInt((await anvil.receipt(tx)).blockNumber);
    await anvil.mine(3);
    await follower.tick();

    expect((await eventsOf(tx)).map((e) => e.type)).toEqual(['deposit.detected', 'deposit.confirmed']);
    expect(await eth(walletId)).toMatchObject({ confirmed: '0.07', available: '0.07' });
    const [stored] = await t.db('transfers').where({ tx_hash: tx }).select('status', 'block_number', 'block_hash');
    const block = await anvil.rpc<{ hash: string }>('eth_getBlockByNumber', [`0x${mined.toString(16)}`, false]);
    expect(stored).toEqual({ status: 'confirmed', block_number: Number(mined), block_hash: block.hash });
  });

  it('a confirmed payout whose transaction vanished goes back to broadcast, then is confirmed again when it lands again', async () => {
    const { walletId, address } = await newAddress();
    await anvil.send(address, 5n * 10n ** 18n);
    await round(2);
    const snapshot = await anvil.rpc<string>('evm_snapshot');
    const prepared = await api('POST', `/wallets/${walletId}/withdrawals`, {
      asset: 'ETH',
      toAddress: '0x000000000000000000000000000000000000dEaD',
      amount: '0.1',
      idempotencyKey: `w-${randomBytes(4).toString('hex')}`,
    });
    expect((await api('POST', `/withdrawals/${prepared.body.id}/broadcast`)).status).toBe(200);
    await round(2);
    const paid = await api('GET', `/withdrawals/${prepared.body.id}`);
    expect(paid.body.status).toBe('confirmed');
    const afterPaid = await eth(walletId);
    expect(afterPaid?.reserved).toBe('0');

    await anvil.rpc('evm_revert', [snapshot]);
    await anvil.mine(5);
    // The follower's round steps it back (the tracker's, next, would send the same bytes again).
    await follower.followRound();
    const back = await api('GET', `/withdrawals/${prepared.body.id}`);
    expect(back.body).toMatchObject({ status: 'broadcast', confirmations: 0 });
    expect(back.body.blockNumber ?? null).toBeNull();
    // Reserved again: the amount and fee cap are held, no longer paid.
    const held = await eth(walletId);
    expect(held?.reserved).not.toBe('0');
    expect(held?.confirmed).not.toBe(afterPaid?.confirmed);
    const stepped = (await feed()).filter(
      (e: { type: string; data: { withdrawalId?: number } }) =>
        e.type === 'withdrawal.broadcast' && e.data.withdrawalId === prepared.body.id,
    );
    expect(stepped.map((e: { data: Record<string, unknown> }) => e.data.previousStatus ?? null)).toEqual([null, 'confirmed']);
    expect(validator('WithdrawalEventData')(stepped[1]?.data)).toBe(true);
    const audits = (await t.db('audit_log').where({ action: 'chain.deep_reorg' }).pluck('details')) as { withdrawals: number[] }[];
    expect(audits.some((d) => d.withdrawals.includes(prepared.body.id))).toBe(true);
    expect(await metrics.registry.metrics()).toMatch(
      /walletd_deep_reorg_retractions_total\{chain="ethereum",network="devnet",kind="withdrawal"\} [1-9]/,
    );

    await follower.tick(); // missing on the node, nonce free: sent again and mined
    await round(2);
    const again = await api('GET', `/withdrawals/${prepared.body.id}`);
    expect(again.body.status).toBe('confirmed');
    // Paid once: the amount and the fee of the transaction on the new chain, nothing held.
    const confirmedAgain = (await feed()).filter(
      (e: { type: string; data: { withdrawalId?: number } }) =>
        e.type === 'withdrawal.confirmed' && e.data.withdrawalId === prepared.body.id,
    );
    expect(confirmedAgain).toHaveLength(2);
    const fee = wei((confirmedAgain[1]?.data.fee as { amount: string } | undefined)?.amount ?? '0');
    expect(await eth(walletId)).toMatchObject({ reserved: '0' });
    expect(wei((await eth(walletId))?.confirmed ?? '0')).toBe(5n * 10n ** 18n - 10n ** 17n - fee);
  });

  it('a confirmed payout whose nonce the new chain used elsewhere is rejected, reason reorg, its funds available again', async () => {
    const { walletId, address } = await newAddress();
    await anvil.send(address, 5n * 10n ** 18n);
    await round(2);
    const before = await eth(walletId);
    const snapshot = await anvil.rpc<string>('evm_snapshot');
    const prepared = await api('POST', `/wallets/${walletId}/withdrawals`, {
      asset: 'ETH',
      toAddress: '0x000000000000000000000000000000000000dEaD',
      amount: '0.2',
      idempotencyKey: `w-${randomBytes(4).toString('hex')}`,
    });
    expect((await api('POST', `/withdrawals/${prepared.body.id}/broadcast`)).status).toBe(200);
    await round(2);
    expect((await api('GET', `/withdrawals/${prepared.body.id}`)).body.status).toBe('confirmed');

    await anvil.rpc('evm_revert', [snapshot]);
    await anvil.mine(5);
    // Another transaction took the source's nonce on the new chain.
    const nonce = BigInt(await anvil.rpc<string>('eth_getTransactionCount', [address, 'latest']));
    await anvil.rpc('anvil_setNonce', [address, `0x${(nonce + 1n).toString(16)}`]);
    await follower.followRound();
    await follower.trackWithdrawals();
    const rejected = await api('GET', `/withdrawals/${prepared.body.id}`);
    expect(rejected.body).toMatchObject({ status: 'rejected', reason: 'reorg' });
    const types = (await feed())
      .filter((e: { data: { withdrawalId?: number } }) => e.data.withdrawalId === prepared.body.id)
      .map((e: { type: string; data: { reason?: string } }) => `${e.type}${e.data.reason ? `:${e.data.reason}` : ''}`);
    expect(types).toEqual(['withdrawal.broadcast', 'withdrawal.confirmed', 'withdrawal.broadcast:reorg', 'withdrawal.rejected:reorg']);
    expect(await eth(walletId)).toMatchObject({ confirmed: before?.confirmed, available: before?.available, reserved: '0' });
  });
});
