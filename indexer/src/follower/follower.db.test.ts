import { type ChainReader, createLogger, type DetectResult } from '@walletd/core';
import { createEvmPlugin } from '@walletd/plugin-evm';
import { createTestDatabase, seedCompany, seedWatchedAddress, type TestDatabase, nativeAsset } from '@walletd/test-harness';
// The built package: the follower's pool runs compiled workers.
import { createDetectPool, createFollower, persistBlock, rejectDetached, rewindTo } from '@walletd/indexer';

const key = { chain: 'ethereum', network: 'devnet' };
const native = nativeAsset('ethereum', 'devnet');
const assets = new Map([[native.key, native]]);
const to = '0x2222222222222222222222222222222222222222';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
  const s = await seedCompany(t.db);
  await seedWatchedAddress(t.db, s.companyId, to);
});
afterAll(async () => {
  await t.drop();
});

const block = (n: bigint, hash: string, parent: string, txHash?: string): DetectResult => ({
  block: { number: n, hash, parentHash: parent },
  transfers: txHash ? [{ txHash, eventIndex: 0, to, toKey: to, assetKey: native.key, amount: 7n, eventType: 'native_transfer' }] : [],
});
const eventsFor = async (txHash: string) =>
  (await t.db('events').orderBy('seq').pluck('body'))
    .map((b: string) => JSON.parse(b))
    .filter((e: { data: { txHash?: string } }) => e.data.txHash === txHash)
    .map((e: { type: string }) => e.type);

describe('transfer store', () => {
  it('brings back a deposit a reorg retracted when its transaction is mined again', async () => {
    const tx = `0x${'ab'.repeat(32)}`;
    await persistBlock(t.db, key, block(10n, '0x10', '0x09', tx), assets, 64, 10n);
    await rewindTo(t.db, key, 9n, '0x09');
    expect(await rejectDetached(t.db, key, assets)).toBe(1);
    // Two blocks later the same transaction is mined again.
    await persistBlock(t.db, key, block(11n, '0x11b', '0x10b', tx), assets, 64, 11n);
    expect(await eventsFor(tx)).toEqual(['deposit.detected', 'deposit.rejected', 'deposit.detected']);
    expect(await t.db('transfers').where({ tx_hash: tx }).first('status', 'reason', 'block_number')).toEqual({
      status: 'pending',
      reason: null,
      block_number: 11,
    });
    // Seen once more (a rescan): nothing new.
    await persistBlock(t.db, key, block(11n, '0x11b', '0x10b', tx), assets, 64, 12n);
    expect(await eventsFor(tx)).toHaveLength(3);
  });

  it('does not take a node that is behind the cursor for a reorg', async () => {
    const tx = `0x${'cd'.repeat(32)}`;
    await t.db('chain_cursors').where(key).delete();
    await persistBlock(t.db, key, block(20n, '0x20', '0x19', tx), assets, 64, 20n);
    const behind: ChainReader = {
      head: async () => 5n,
      fetchBlock: async () => {
        throw new Error('not expected');
      },
      blockHash: async () => null,
      getBalance: async () => ({ total: 0n, spendable: 0n }),
    };
    const pool = createDetectPool(1);
    try {
      const f = createFollower({
        db: t.db,
        logger: createLogger({ level: 'silent' }),
        pool,
        plugin: createEvmPlugin(),
        reader: behind,
        settings: { ...key, rpcUrl: 'http://unused', confirmations: 1 },
      });
      await f.tick();
    } finally {
      await pool.close();
    }
    expect(await eventsFor(tx)).toEqual(['deposit.detected']);
    expect(await t.db('transfers').where({ tx_hash: tx }).first('status')).toEqual({ status: 'pending' });
    expect(await t.db('chain_cursors').where(key).first('height')).toEqual({ height: 20 });
  });
});
