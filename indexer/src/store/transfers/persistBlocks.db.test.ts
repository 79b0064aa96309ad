import type { DetectResult, DetectedTransfer } from '@walletd/core';
import { createTestDatabase, seedCompany, seedWatchedAddress, type TestDatabase, nativeAsset } from '@walletd/test-harness';
// The built package, as the follower runs it.
import { pendingTransfers, persistBlock, persistBlocks, persistMempool, rejectDetached, rewindTo } from '@walletd/indexer';

const key = { chain: 'ethereum', network: 'devnet' };
const native = nativeAsset('ethereum', 'devnet');
const assets = new Map([[native.key, native]]);
const a = '0x1111111111111111111111111111111111111111';
const b = '0x2222222222222222222222222222222222222222';

let t: TestDatabase;
let wallets: { a: number; b: number };
beforeAll(async () => {
  t = await createTestDatabase();
  const s = await seedCompany(t.db);
  wallets = { a: await seedWatchedAddress(t.db, s.companyId, a, 'w0'), b: await seedWatchedAddress(t.db, s.companyId, b, 'w1') };
  // One webhook for every event, one for wallet b's deposits only.
  const hook = (events: string[], walletIds: number[]) => ({
    company_id: s.companyId,
    type: 'http',
    config: {},
    events,
    wallet_ids: walletIds,
    secret_envelope: {},
  });
  await t.db('webhooks').insert([hook(['*'], []), hook(['deposit.detected'], [wallets.b])]);
});
afterAll(async () => {
  await t.drop();
});

const transfer = (txHash: string, to: string, eventIndex = 0): DetectedTransfer => ({
  txHash,
  eventIndex,
  to,
  toKey: to,
  assetKey: native.key,
  amount: 5n,
  eventType: 'native_transfer',
});
const block = (n: bigint, parent: string, transfers: DetectedTransfer[]): DetectResult => ({
  block: { number: n, hash: `0x${n.toString(16)}`, parentHash: parent },
  transfers,
});
const tx = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const detected = async () =>
  (await t.db('events').where({ type: 'deposit.detected' }).orderBy('seq').select('id', 'wallet_id', 'body')).map(
    (e: { id: string; wallet_id: number; body: string }) => ({ id: e.id, walletId: e.wallet_id, data: JSON.parse(e.body).data }),
  );

describe('persistBlocks: a catch-up writes several blocks in one transaction', () => {
  it('records every transfer once, announces the new ones in chain order, and queues their deliveries', async () => {
    const first = block(100n, '0x63', [transfer(tx(1), a), transfer(tx(2), b), transfer(tx(2), b, 1), transfer(tx(1), a)]);
    const second = block(101n, '0x64', [transfer(tx(3), b), transfer(tx(4), '0x9999999999999999999999999999999999999999')]);
    const third = block(103n, '0x65', []);
    expect(await persistBlocks(t.db, key, [first, second, third], assets, 64, 110n, { cursorTo: 104n })).toEqual([3, 1, 0]);
    const events = await detected();
    expect(events.map((e) => [e.data.txHash, e.data.eventIndex])).toEqual([
      [tx(1), 0],
      [tx(2), 0],
      [tx(2), 1],
      [tx(3), 0],
    ]);
    expect(events.map((e) => e.walletId)).toEqual([wallets.a, wallets.b, wallets.b, wallets.b]);
    expect(events[0]?.data).toMatchObject({ amount: '0.000000000000000005', confirmations: 11, status: 'pending', toAddress: a });
    // Every event to the catch-all webhook, wallet b's also to its own: 4 + 3 deliveries.
    expect(Number((await t.db('webhook_deliveries').count('* as n').first())?.n)).toBe(7);
    expect(await t.db('recent_blocks').where(key).orderBy('height').pluck('height')).toEqual([100, 101, 103]);
    expect(await t.db('chain_cursors').where(key).first('height', 'hash')).toEqual({ height: 104, hash: '0x67' });

    // Read again (a rescan, a second indexer's late write): nothing new.
    expect(await persistBlocks(t.db, key, [first, second], assets, 64, 111n)).toEqual([0, 0]);
    expect(await persistBlock(t.db, key, second, assets, 64, 111n, false)).toBe(0);
    expect(await detected()).toHaveLength(4);
    expect(Number((await t.db('transfers').where(key).count('* as n').first())?.n)).toBe(4);
  });

  it('keeps the mempool path exactly-once, and brings back what a reorg retracted', async () => {
    expect(await persistMempool(t.db, key, [transfer(tx(9), a), transfer(tx(9), a)], assets)).toBe(1);
    expect(await persistMempool(t.db, key, [transfer(tx(9), a)], assets)).toBe(0);
    // Mined: attached to its block, not announced again.
    expect(await persistBlocks(t.db, key, [block(105n, '0x67', [transfer(tx(9), a)])], assets, 64, 105n)).toEqual([0]);
    expect(
      await t
        .db('transfers')
        .where({ tx_hash: tx(9) })
        .first('block_number', 'seen_in_block'),
    ).toEqual({
      block_number: 105,
      seen_in_block: true,
    });
    // A reorg removes the block, the deposit is retracted; mined again, it is announced again.
    await rewindTo(t.db, key, 104n, '0x67');
    expect(await rejectDetached(t.db, key, assets)).toBe(1);
    expect(await persistBlocks(t.db, key, [block(105n, '0x67', [transfer(tx(9), a)])], assets, 64, 105n)).toEqual([1]);
    const types = (await t.db('events').orderBy('seq').pluck('body'))
      .map((body: string) => JSON.parse(body))
      .filter((e: { data: { txHash: string } }) => e.data.txHash === tx(9))
      .map((e: { type: string }) => e.type);
    expect(types).toEqual(['deposit.detected', 'deposit.rejected', 'deposit.detected']);
  });

  it('the same identity on another fork with other content (amount, recipient) is another transfer: retracted, then announced anew', async () => {
    // Another fork's block 106 executes the same signature with other balance deltas.
    expect(await persistBlocks(t.db, key, [block(106n, '0x68', [transfer(tx(11), a)])], assets, 64, 106n)).toEqual([1]);
    await rewindTo(t.db, key, 105n, '0x69');
    const other = {
      ...block(106n, '0x69', [{ ...transfer(tx(11), a), amount: 7n }]),
      block: { number: 106n, hash: '0xf106', parentHash: '0x69' },
    };
    expect(await persistBlocks(t.db, key, [other], assets, 64, 106n)).toEqual([1]);
    // And again on a third fork: the whole transfer moves to b.
    await rewindTo(t.db, key, 105n, '0x69');
    expect(await persistBlocks(t.db, key, [block(106n, '0x69', [{ ...transfer(tx(11), b), amount: 7n }])], assets, 64, 106n)).toEqual([1]);
    const seen = (await t.db('events').orderBy('seq').pluck('body'))
      .map((body: string) => JSON.parse(body))
      .filter((e: { data: { txHash: string } }) => e.data.txHash === tx(11))
      .map((e: { type: string; data: { amount: string; toAddress: string; reason?: string } }) => [
        e.type,
        e.data.amount,
        e.data.toAddress,
      ]);
    const units = (n: number) => `0.00000000000000000${n}`;
    expect(seen).toEqual([
      ['deposit.detected', units(5), a],
      ['deposit.rejected', units(5), a],
      ['deposit.detected', units(7), a],
      ['deposit.rejected', units(7), a],
      ['deposit.detected', units(7), b],
    ]);
    expect(
      await t
        .db('transfers')
        .where({ tx_hash: tx(11) })
        .select('amount', 'to_address', 'wallet_id', 'status', 'block_hash'),
    ).toEqual([{ amount: '7', to_address: b, wallet_id: wallets.b, status: 'pending', block_hash: '0x6a' }]);
  });

  it('a CONFIRMED transfer seen again on another fork with another amount is retracted (previousStatus confirmed), the new one announced', async () => {
    // 10 units confirmed in block 107 (status set as applyDecisions sets it); a deeper reorg, then
    // the same transaction executes on the new branch moving 4.
    expect(await persistBlocks(t.db, key, [block(107n, '0x6a', [{ ...transfer(tx(12), a), amount: 10n }])], assets, 64, 107n)).toEqual([1]);
    await t
      .db('transfers')
      .where({ tx_hash: tx(12) })
      .update({ status: 'confirmed', confirmations: 3 });
    expect((await rewindTo(t.db, key, 106n, '0x6a')).retractedTransfers).toHaveLength(1);
    const other = {
      ...block(107n, '0x6a', [{ ...transfer(tx(12), a), amount: 4n }]),
      block: { number: 107n, hash: '0xf107', parentHash: '0x6a' },
    };
    expect(await persistBlocks(t.db, key, [other], assets, 64, 107n)).toEqual([1]);
    const seen = (await t.db('events').orderBy('seq').pluck('body'))
      .map((body: string) => JSON.parse(body))
      .filter((e: { data: { txHash: string } }) => e.data.txHash === tx(12))
      .map((e: { type: string; data: { amount: string; previousStatus?: string } }) => [
        e.type,
        e.data.amount,
        e.data.previousStatus ?? null,
      ]);
    expect(seen).toEqual([
      ['deposit.detected', '0.00000000000000001', null],
      ['deposit.rejected', '0.00000000000000001', 'confirmed'],
      ['deposit.detected', '0.000000000000000004', null],
    ]);
    expect(
      await t
        .db('transfers')
        .where({ tx_hash: tx(12) })
        .select('amount', 'status', 'block_hash'),
    ).toEqual([{ amount: '4', status: 'pending', block_hash: '0xf107' }]);
  });

  it('stores no amount ≤ 0 whatever a plugin reports, and keeps a held transfer (balance_mismatch) out of what confirm sees', async () => {
    const zero = { ...transfer(tx(20), a), amount: 0n };
    const negative = { ...transfer(tx(21), a), amount: -1n };
    const held = { ...transfer(tx(22), b), held: 'balance_mismatch' as const };
    expect(await persistBlocks(t.db, key, [block(300n, '0x12b', [zero, negative, held])], assets, 64, 300n)).toEqual([1]);
    expect(
      await t
        .db('transfers')
        .whereIn('tx_hash', [tx(20), tx(21)])
        .pluck('id'),
    ).toEqual([]);
    const row = await t
      .db('transfers')
      .where({ tx_hash: tx(22) })
      .first('id', 'status', 'reason');
    expect(row).toMatchObject({ status: 'pending', reason: 'balance_mismatch' });
    expect((await detected()).find((e) => e.data.txHash === tx(22))?.data).toMatchObject({ reason: 'balance_mismatch' });
    expect((await pendingTransfers(t.db, key)).map((p) => p.id)).not.toContain(row.id);
  });

  it('keeps recent_blocks to the reorg window: a working table bounded by the window, not by the chain (issue 32)', async () => {
    const other = { chain: 'ethereum', network: 'window-test' };
    const hash = (n: bigint) => `0x${n.toString(16)}`;
    for (let n = 1000n; n < 1010n; n += 2n) {
      const pair = [block(n, hash(n - 1n), []), block(n + 1n, hash(n), [])];
      await persistBlocks(t.db, other, pair, assets, 4, n + 1n);
    }
    // The last four heights (1006..1009) only, however many blocks were followed; other chains untouched.
    expect(await t.db('recent_blocks').where(other).orderBy('height').pluck('height')).toEqual([1006, 1007, 1008, 1009]);
    expect(Number((await t.db('recent_blocks').where(key).count('* as n').first())?.n)).toBeGreaterThan(0);
  });

  it('a group longer than the window keeps the window only, in the same statement as the cursor', async () => {
    const other = { chain: 'ethereum', network: 'window-long' };
    const hash = (n: bigint) => `0x${n.toString(16)}`;
    const group = Array.from({ length: 10 }, (_, i) => block(2000n + BigInt(i), hash(1999n + BigInt(i)), []));
    await persistBlocks(t.db, other, group, assets, 4, 2009n);
    expect(await t.db('recent_blocks').where(other).orderBy('height').pluck('height')).toEqual([2006, 2007, 2008, 2009]);
    expect(await t.db('chain_cursors').where(other).first('height', 'hash')).toEqual({ height: 2009, hash: hash(2009n) });
    // The next group moves the window on and replaces a block written again (a rewind) in place.
    await persistBlocks(t.db, other, [block(2009n, hash(2008n), []), block(2010n, hash(2009n), [])], assets, 4, 2010n);
    expect(await t.db('recent_blocks').where(other).orderBy('height').pluck('height')).toEqual([2007, 2008, 2009, 2010]);
  });
});
