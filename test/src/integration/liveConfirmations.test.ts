import { randomBytes } from 'node:crypto';
import { type ChainSettings, MasterKey } from '@walletd/core';
import { createDetectPool, type DetectPool, type Follower } from '@walletd/indexer';
import {
  type Anvil,
  type Seeded,
  type TestApp,
  type TestDatabase,
  call,
  createTestDatabase,
  seedCompany,
  startAnvil,
  startTestApp,
  testFollower,
} from '@walletd/test-harness';

/**
 * `confirmations` of a confirmed deposit or withdrawal, as the API shows it, on anvil: it stayed at
 * the count it was confirmed with however many blocks followed; now it is the blocks from its own
 * to the indexed height (head − block + 1, the rule it was confirmed by), read once per request.
 */
describe('confirmations keep counting after a transaction is confirmed', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  let pool: DetectPool;
  let app: TestApp;
  let s: Seeded;
  let follower: Follower;
  let walletId: number;
  const api = (method: string, path: string, body?: unknown) => call(app.url, method, `/v1${path}`, { key: s.rootKey, body });
  const round = async (blocks: number) => {
    await anvil.mine(blocks);
    await follower.tick();
  };
  /** What each read of the API says now: the list of transactions, the withdrawal, the wallet's withdrawals. */
  const counts = async (withdrawalId: number) => {
    const list = (await api('GET', `/transactions?walletId=${walletId}`)).body.transactions as {
      kind: string;
      confirmations: number;
      blockNumber: number;
    }[];
    const deposit = list.find((x) => x.kind === 'deposit');
    const withdrawal = list.find((x) => x.kind === 'withdrawal');
    return {
      deposit: deposit?.confirmations,
      depositBlock: deposit?.blockNumber,
      listedWithdrawal: withdrawal?.confirmations,
      withdrawalBlock: withdrawal?.blockNumber,
      withdrawal: (await api('GET', `/withdrawals/${withdrawalId}`)).body.confirmations,
      walletWithdrawals: (await api('GET', `/wallets/${walletId}/withdrawals`)).body.withdrawals[0].confirmations,
    };
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
    await anvil.send(address, 5n * 10n ** 18n);
    await round(2);
  });
  afterAll(async () => {
    await app.close();
    await pool.close();
    await anvil.stop();
    await t.drop();
  });

  it('a confirmed deposit and withdrawal show 10 more confirmations after 10 more blocks, everywhere', async () => {
    const prepared = await api('POST', `/wallets/${walletId}/withdrawals`, {
      asset: 'ETH',
      toAddress: '0x000000000000000000000000000000000000dEaD',
      amount: '0.1',
      idempotencyKey: 'w1',
    });
    expect((await api('POST', `/withdrawals/${prepared.body.id}/broadcast`)).status).toBe(200);
    await round(2);
    const before = await counts(prepared.body.id);
    expect((await api('GET', `/withdrawals/${prepared.body.id}`)).body.status).toBe('confirmed');
    // Confirmed at the threshold (2) or past it: what the indexer recorded.
    const head = Number(await anvil.head());
    expect(before).toEqual({
      deposit: head - (before.depositBlock as number) + 1,
      depositBlock: expect.any(Number),
      listedWithdrawal: head - (before.withdrawalBlock as number) + 1,
      withdrawalBlock: expect.any(Number),
      withdrawal: before.listedWithdrawal,
      walletWithdrawals: before.listedWithdrawal,
    });

    await round(10);
    const after = await counts(prepared.body.id);
    expect(after).toEqual({
      deposit: (before.deposit as number) + 10,
      depositBlock: before.depositBlock,
      listedWithdrawal: (before.listedWithdrawal as number) + 10,
      withdrawalBlock: before.withdrawalBlock,
      withdrawal: (before.listedWithdrawal as number) + 10,
      walletWithdrawals: (before.listedWithdrawal as number) + 10,
    });
    // The events keep the count they were sent with: a receiver's record of the moment.
    const [event] = await t.db('events').where({ type: 'deposit.confirmed' }).pluck('body');
    const [stored] = await t.db('transfers').pluck('confirmations');
    expect(JSON.parse(event).data.confirmations).toBe(stored);
    expect(stored).toBeLessThan(after.deposit as number);
  });
});
