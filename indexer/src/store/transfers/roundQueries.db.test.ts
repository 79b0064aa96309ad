import { type Db, type DetectedTransfer, createDb } from '@walletd/core';
import { pendingTransfers, persistBlock, rejectDetached } from '@walletd/indexer';
import { createTestDatabase, nativeAsset, seedCompany, seedWatchedAddress, type TestDatabase } from '@walletd/test-harness';

const key = { chain: 'ethereum', network: 'devnet' };
const native = nativeAsset('ethereum', 'devnet');
const assets = new Map([[native.key, native]]);
const to = '0x4444444444444444444444444444444444444444';

let t: TestDatabase;
// One connection: the prepared statements and their plan counts are per connection.
let one: Db;
beforeAll(async () => {
  t = await createTestDatabase();
  one = createDb({ url: t.url, poolMax: 1 });
  const s = await seedCompany(t.db);
  await seedWatchedAddress(t.db, s.companyId, to);
});
afterAll(async () => {
  await one?.destroy();
  await t?.drop();
});

const transfer = (n: number): DetectedTransfer => ({
  txHash: `0x${n.toString(16).padStart(64, '0')}`,
  eventIndex: 0,
  to,
  toKey: to,
  assetKey: native.key,
  amount: BigInt(n) * 1000n,
  eventType: 'native_transfer',
});

/**
 * Issue 32: the indexer's two per-round queries read only the pending set, but `transfers` is
 * partitioned by month with no month to prune to, so planning them meant one branch per month kept
 * (1.4–7 ms a round at 28 months on the scale bench, against 0.2–0.4 ms of execution), every round
 * of every chain. Run by name, PostgreSQL keeps one generic plan per connection instead.
 */
describe('the per-round indexer queries', () => {
  it('pending transfers and detached candidates are planned once per connection, not every round', async () => {
    await persistBlock(one, key, { block: { number: 7n, hash: '0x07', parentHash: '0x06' }, transfers: [transfer(1)] }, assets, 64, 7n);
    await persistBlock(one, key, { block: { number: 8n, hash: '0x08', parentHash: '0x07' }, transfers: [transfer(2)] }, assets, 64, 8n);
    await one('transfers').where({ block_number: 8 }).update({ block_number: null, block_hash: null });

    for (let round = 0; round < 8; round++) {
      const pending = await pendingTransfers(one, key);
      expect(pending.map((p) => p.blockNumber)).toEqual(expect.arrayContaining([7n, null]));
      // The candidates query runs, the rejection it leads to is rolled back.
      await one
        .transaction(async (trx) => {
          expect(await rejectDetached(trx, key, assets)).toBe(1);
          throw new Error('rolled back');
        })
        .catch((e: Error) => expect(e.message).toBe('rolled back'));
    }

    const plans = (
      await one.raw(
        `select name, generic_plans::int as generic, custom_plans::int as custom from pg_prepared_statements
          where name in ('walletd_pending_transfers', 'walletd_detached_candidates') order by name`,
      )
    ).rows as { name: string; generic: number; custom: number }[];
    // Every round on the generic plan (genericPlan): none planned for its values. PostgreSQL's own
    // rule (five plans afresh, then the generic one if it costs no more) kept planning the pending
    // query every round on the scale bench's 100k history.
    expect(plans.map((p) => ({ name: p.name, custom: p.custom, generic: p.generic > 0 }))).toEqual([
      { name: 'walletd_detached_candidates', custom: 0, generic: true },
      { name: 'walletd_pending_transfers', custom: 0, generic: true },
    ]);
  });
});
