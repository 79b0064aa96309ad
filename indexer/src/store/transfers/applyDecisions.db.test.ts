import type { AssetRef, DetectResult, DetectedTransfer } from '@walletd/core';
import { createTestDatabase, seedCompany, seedWatchedAddress, type TestDatabase, nativeAsset } from '@walletd/test-harness';
import { persistBlock } from '@walletd/indexer';
import { applyDecisions } from './applyDecisions';

const key = { chain: 'ethereum', network: 'devnet' };
const native = nativeAsset('ethereum', 'devnet');
const token: AssetRef = {
  key: 'ethereum:devnet:0x5fbdb2315678afecb367f032d93f642f64180aa3',
  symbol: 'USDC',
  decimals: 6,
  contractAddress: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
};
const to = '0x3333333333333333333333333333333333333333';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
  const s = await seedCompany(t.db);
  await seedWatchedAddress(t.db, s.companyId, to);
});
afterAll(async () => {
  await t.drop();
});

const tx = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const transfer = (n: number, asset: AssetRef): DetectedTransfer => ({
  txHash: tx(n),
  eventIndex: 0,
  to,
  toKey: to,
  assetKey: asset.key,
  amount: BigInt(n) * 1000n,
  eventType: asset === native ? 'native_transfer' : 'erc20_transfer',
});
const transfers = async () =>
  (await t.db('transfers').where(key).orderBy('id').select('id', 'tx_hash', 'status', 'confirmations', 'reason')) as {
    id: number;
    tx_hash: string;
    status: string;
    confirmations: number;
    reason: string | null;
  }[];
const eventsAfter = async (seq: number) =>
  (await t.db('events').where('seq', '>', seq).orderBy('seq').pluck('body')).map((b: string) => {
    const e = JSON.parse(b);
    return { type: e.type, txHash: e.data.txHash, confirmations: e.data.confirmations, reason: e.data.reason, amount: e.data.amount };
  });

describe('applyDecisions', () => {
  it('applies many decisions in three statements, in chain order, each with its event, skipping rows it must not change', async () => {
    const block: DetectResult = {
      block: { number: 10n, hash: '0x0a', parentHash: '0x09' },
      transfers: [1, 2, 3, 4, 5, 6].map((n) => transfer(n, n === 5 ? token : native)),
    };
    await persistBlock(
      t.db,
      key,
      block,
      new Map([
        [native.key, native],
        [token.key, token],
      ]),
      64,
      10n,
    );
    const rows = await transfers();
    expect(rows.map((r) => r.status)).toEqual(['pending', 'pending', 'pending', 'pending', 'pending', 'pending']);
    const id = (n: number) => rows[n - 1]?.id as number;
    const untouched = rows[4] as { confirmations: number };
    // Already settled: no second event.
    await t
      .db('transfers')
      .where({ id: id(6) })
      .update({ status: 'confirmed', confirmations: 9 });
    const seq = ((await t.db('events').max('seq as m').first())?.m ?? 0) as number;

    const statements: string[] = [];
    const count = (q: { sql: string }) => statements.push(q.sql);
    t.db.on('query', count);
    const applied = await applyDecisions(
      t.db,
      key,
      [
        { id: id(4), status: 'rejected', confirmations: 0, reason: 'reorg' },
        { id: id(1), status: 'confirmed', confirmations: 12 },
        { id: id(3), status: 'confirmed', confirmations: 12 },
        { id: id(3), status: 'rejected', confirmations: 0, reason: 'reorg' }, // the same row again: the first decision stands
        { id: id(5), status: 'confirmed', confirmations: 12 }, // its asset is no longer configured
        { id: id(6), status: 'confirmed', confirmations: 12 }, // no longer pending
        { id: id(2), status: 'confirmed', confirmations: 12 },
      ],
      new Map([[native.key, native]]),
    );
    t.db.off('query', count);

    expect(applied).toBe(4);
    expect(statements.filter((s) => !/^(begin|commit)/i.test(s.trim()))).toHaveLength(3);
    expect((await transfers()).map((r) => [r.status, r.confirmations, r.reason])).toEqual([
      ['confirmed', 12, null],
      ['confirmed', 12, null],
      ['confirmed', 12, null],
      ['rejected', 0, 'reorg'],
      ['pending', untouched.confirmations, null],
      ['confirmed', 9, null],
    ]);
    expect(await eventsAfter(seq)).toEqual([
      { type: 'deposit.confirmed', txHash: tx(1), confirmations: 12, reason: undefined, amount: '0.000000000000001' },
      { type: 'deposit.confirmed', txHash: tx(2), confirmations: 12, reason: undefined, amount: '0.000000000000002' },
      { type: 'deposit.confirmed', txHash: tx(3), confirmations: 12, reason: undefined, amount: '0.000000000000003' },
      { type: 'deposit.rejected', txHash: tx(4), confirmations: 0, reason: 'reorg', amount: '0.000000000000004' },
    ]);
    // Decided rows are no longer pending: deciding again changes nothing.
    expect(await applyDecisions(t.db, key, [{ id: id(1), status: 'confirmed', confirmations: 13 }], new Map([[native.key, native]]))).toBe(
      0,
    );
  });
});
