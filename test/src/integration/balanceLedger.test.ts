import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { type ChainSettings, type Db, MasterKey, createLogger, createMetrics } from '@walletd/core';
import { createDetectPool, type DetectPool, type Follower } from '@walletd/indexer';
import { checkLedger, compareLedger } from '@walletd/server';
import {
  type Anvil,
  type Seeded,
  type TestApp,
  type TestDatabase,
  type TestToken,
  call,
  createTestDatabase,
  deployTestToken,
  seedCompany,
  startAnvil,
  startTestApp,
  testFollower,
} from '@walletd/test-harness';

const ETH = 10n ** 18n;
const KEY = { chain: 'ethereum', network: 'devnet' };
const NATIVE = 'ethereum:devnet:eth';

type Figures = Record<string, { confirmed: bigint; pending: bigint; reserved: bigint }>;

/**
 * The oracle: every figure summed over the whole history, as the balance read did before the
 * ledger (issue 28's query), at one address or the whole wallet ('').
 */
async function fromHistory(db: Db, walletId: number, address: string): Promise<Figures> {
  const at = (col: string) => (address === '' ? 'true' : `${col} = :address`);
  const { rows } = await db.raw(
    `select asset_key, sum(c)::text as c, sum(p)::text as p, sum(r)::text as r from (
       select t.asset_key, case when t.status = 'confirmed' then t.amount else 0 end as c,
              case when t.status = 'pending' then t.amount else 0 end as p, 0::numeric as r
         from transfers t left join addresses a on a.id = t.address_id
        where t.wallet_id = :wallet and t.direction = 'incoming' and ${at('a.address')}
       union all
       select w.asset_key, w.internal_amount, 0, 0 from withdrawals w left join addresses a on a.id = w.to_address_id
        where w.wallet_id = :wallet and w.status = 'confirmed' and ${at('a.address')}
       union all
       select w.asset_key, case when w.status = 'confirmed' then -w.amount else 0 end, 0,
              case when w.status in ('prepared', 'signed', 'broadcast') then w.amount else 0 end
         from withdrawals w where w.wallet_id = :wallet and ${at('w.from_address')}
       union all
       select :native, case when w.status in ('confirmed', 'rejected') then -coalesce(w.fee, 0) else 0 end, 0,
              case when w.status in ('prepared', 'signed', 'broadcast') then coalesce((w.unsigned_tx->>'fee')::numeric, 0) else 0 end
         from withdrawals w where w.wallet_id = :wallet and ${at('w.source_addresses[array_length(w.source_addresses, 1)]')}
     ) m group by asset_key`,
    { wallet: walletId, address, native: NATIVE },
  );
  const out: Figures = {};
  for (const r of rows as { asset_key: string; c: string; p: string; r: string }[]) {
    const f = { confirmed: BigInt(r.c), pending: BigInt(r.p), reserved: BigInt(r.r) };
    if (f.confirmed !== 0n || f.pending !== 0n || f.reserved !== 0n) out[r.asset_key] = f;
  }
  return out;
}

/** The ledger's rows at the scope, fees folded into the native asset as every reader does. */
async function fromLedger(db: Db, walletId: number, address: string): Promise<Figures> {
  const rows = await db('balance_ledger')
    .where({ wallet_id: walletId, address })
    .select('asset_key', db.raw('confirmed::text'), db.raw('pending::text'), db.raw('reserved::text'));
  const out: Figures = {};
  for (const r of rows as { asset_key: string; confirmed: string; pending: string; reserved: string }[]) {
    const key = r.asset_key === 'fee' ? NATIVE : r.asset_key;
    const f = out[key] ?? { confirmed: 0n, pending: 0n, reserved: 0n };
    f.confirmed += BigInt(r.confirmed);
    f.pending += BigInt(r.pending);
    f.reserved += BigInt(r.reserved);
    out[key] = f;
  }
  for (const [k, f] of Object.entries(out)) if (f.confirmed === 0n && f.pending === 0n && f.reserved === 0n) delete out[k];
  return out;
}

/**
 * The balance ledger (issue 32) on anvil through the real indexer and API: after every step of a
 * scripted sequence the kept totals equal the recomputation from history, at the wallet and at
 * each address; two connections never lose an increment; a tampered row is an alarm.
 */
describe('balance ledger on anvil', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  let pool: DetectPool;
  let usdc: TestToken;
  let app: TestApp;
  let s: Seeded;
  let follower: Follower;
  let settings: ChainSettings;
  let walletId: number;
  let a: string;
  let b: string;
  const masterKey = new MasterKey(randomBytes(32));
  const recipient = '0x000000000000000000000000000000000000bEEF';
  const api = (method: string, path: string, body?: unknown) => call(app.url, method, `/v1${path}`, { key: s.rootKey, body });
  const round = async (blocks = 1) => {
    await anvil.mine(blocks);
    await follower.tick();
  };
  /** Ledger = history at the wallet and each address, and the check finds nothing. */
  const agrees = async () => {
    for (const at of ['', a, b]) expect(await fromLedger(t.db, walletId, at)).toEqual(await fromHistory(t.db, walletId, at));
    expect(await compareLedger(t.db, KEY)).toEqual([]);
  };
  const balance = async (symbol: string) => {
    const res = await api('GET', `/wallets/${walletId}/balances`);
    return (res.body.balances as { asset: { symbol: string }; reserved: string }[]).find((x) => x.asset.symbol === symbol);
  };

  beforeAll(async () => {
    t = await createTestDatabase();
    anvil = await startAnvil();
    pool = createDetectPool(1);
    usdc = await deployTestToken(anvil, 'USD Coin', 'USDC', 6);
    settings = {
      ...KEY,
      rpcUrl: anvil.url,
      confirmations: 2,
      startBlock: 0,
      tokens: [{ contract: usdc.address, symbol: 'USDC', decimals: 6 }],
    };
    app = await startTestApp(t.db, { chains: [settings], rateLimit: { writesPerKeyPerMinute: 1000 } }, masterKey);
    follower = testFollower(t.db, pool, settings);
    s = await seedCompany(t.db);
    walletId = (await api('POST', '/wallets', { name: 'hot', chain: 'ethereum', network: 'devnet' })).body.id;
    a = (await api('POST', `/wallets/${walletId}/addresses`)).body.address;
    b = (await api('POST', `/wallets/${walletId}/addresses`)).body.address;
  });
  afterAll(async () => {
    await app.close();
    await pool.close();
    await anvil.stop();
    await t.drop();
  });

  it('equals the recomputation from history after deposits, confirmations, a reorg, payouts with fees, a release, a failure and a replay', async () => {
    await follower.tick();
    await anvil.send(a, 2n * ETH);
    await follower.tick();
    expect(await balance('ETH')).toMatchObject({ confirmed: '0', pending: '2' });
    await agrees();
    await usdc.mint(a, 100_000_000n);
    await round(2);
    expect(await balance('ETH')).toMatchObject({ confirmed: '2', pending: '0', available: '2' });
    await agrees();

    // A pending deposit to `b` that a reorg takes away.
    await anvil.send(b, 3n * ETH);
    await follower.tick();
    expect(await balance('ETH')).toMatchObject({ pending: '3' });
    await agrees();
    await anvil.rpc('anvil_reorg', [2, []]);
    await follower.tick();
    expect(await balance('ETH')).toMatchObject({ confirmed: '2', pending: '0' });
    await agrees();

    // A payout with its fee: reserved at prepare, paid at confirmation.
    const paid = await api('POST', `/wallets/${walletId}/withdrawals`, {
      asset: 'ETH',
      toAddress: recipient,
      amount: '0.5',
      idempotencyKey: 'l-1',
    });
    expect(paid.status).toBe(201);
    expect((await balance('ETH'))?.reserved).not.toBe('0');
    await agrees();
    expect((await api('POST', `/withdrawals/${paid.body.id}/broadcast`)).status).toBe(200);
    await agrees();
    await round(3);
    expect((await api('GET', `/withdrawals/${paid.body.id}`)).body.status).toBe('confirmed');
    expect(await balance('ETH')).toMatchObject({ reserved: '0' });
    await agrees();

    // A reservation released by a cancel.
    const held = await api('POST', `/wallets/${walletId}/withdrawals`, {
      asset: 'USDC',
      toAddress: recipient,
      amount: '10',
      idempotencyKey: 'l-2',
    });
    expect(held.status).toBe(201);
    expect(await balance('USDC')).toMatchObject({ reserved: '10', available: '90' });
    await agrees();
    expect((await api('POST', `/withdrawals/${held.body.id}/cancel`)).status).toBe(200);
    expect(await balance('USDC')).toMatchObject({ reserved: '0', available: '100' });
    await agrees();

    // A token payout that reverts on chain: nothing paid, its fee burnt, its reservation released.
    const fails = await api('POST', `/wallets/${walletId}/withdrawals`, {
      asset: 'USDC',
      toAddress: recipient,
      amount: '2',
      idempotencyKey: 'l-3',
    });
    expect((await api('POST', `/withdrawals/${fails.body.id}/sign`)).body.status).toBe('signed');
    await usdc.setQuirks({ paused: true });
    expect((await api('POST', `/withdrawals/${fails.body.id}/broadcast`)).status).toBe(200);
    await round(3);
    expect((await api('GET', `/withdrawals/${fails.body.id}`)).body).toMatchObject({ status: 'rejected', reason: 'failed_on_chain' });
    expect(await balance('USDC')).toMatchObject({ confirmed: '100', reserved: '0' });
    await agrees();
    await usdc.setQuirks({ paused: false });

    // Rounds replayed (a rescan from genesis, a restarted follower): each transfer counts once.
    const before = await fromLedger(t.db, walletId, '');
    await follower.rescanFrom(0n);
    await testFollower(t.db, pool, settings).tick();
    expect(await fromLedger(t.db, walletId, '')).toEqual(before);
    await agrees();
  });

  it('two connections adding to the same row at once lose no increment', async () => {
    const addressId = (await t.db('addresses').where({ address: a }).first('id')).id as number;
    const insert = (trx: Db, n: number, assetKey = NATIVE) =>
      trx('transfers').insert({
        company_id: s.companyId,
        wallet_id: walletId,
        address_id: addressId,
        ...KEY,
        tx_hash: `0xconcurrent${n}`,
        tx_key: `0xconcurrent${n}`,
        event_index: 0,
        direction: 'incoming',
        event_type: 'native_transfer',
        asset_key: assetKey,
        amount: String(n),
        to_address: a,
        block_number: 1,
        status: 'confirmed',
      });
    const before = (await fromLedger(t.db, walletId, a))[NATIVE]?.confirmed ?? 0n;
    // The first writer holds the row's lock until it commits; the second adds after it, not over it.
    const first = await t.db.transaction();
    await insert(first, 1);
    const second = t.db.transaction(async (trx) => insert(trx, 2));
    await first.commit();
    await second;
    expect((await fromLedger(t.db, walletId, a))[NATIVE]?.confirmed).toBe(before + 3n);
    // Twenty at once on their own connections, racing to write a row that does not exist yet.
    const fresh = 'ethereum:devnet:0xfresh';
    await Promise.all(Array.from({ length: 20 }, (_, i) => t.db.transaction(async (trx) => insert(trx, 3 + i, fresh))));
    expect((await fromLedger(t.db, walletId, a))[fresh]?.confirmed).toBe(250n);
    await agrees();
  });

  it('a ledger row changed behind the triggers is an alarm: the gauge and an error line naming it', async () => {
    await t.db('balance_ledger').where({ wallet_id: walletId, address: a, asset_key: NATIVE }).increment('confirmed', 7);
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const metrics = createMetrics();
    const drifts = await checkLedger({ db: t.db, logger: createLogger({ destination }), metrics }, KEY);
    expect(drifts).toHaveLength(1);
    expect(drifts?.[0]).toMatchObject({ walletId, address: a, assetKey: NATIVE });
    expect(BigInt(drifts?.[0]?.kept.confirmed ?? '0') - BigInt(drifts?.[0]?.history.confirmed ?? '0')).toBe(7n);
    expect(await metrics.registry.metrics()).toContain('walletd_balance_ledger_drifts{chain="ethereum",network="devnet"} 1');
    const logged = lines.map((l) => JSON.parse(l));
    expect(logged).toEqual([
      expect.objectContaining({ level: 50, walletId, address: a, msg: 'balance ledger differs from its recomputation from history' }),
    ]);
    // Put right: the next check clears the gauge.
    await t.db('balance_ledger').where({ wallet_id: walletId, address: a, asset_key: NATIVE }).decrement('confirmed', 7);
    expect(await checkLedger({ db: t.db, logger: createLogger({ destination }), metrics }, KEY)).toEqual([]);
    expect(await metrics.registry.metrics()).toContain('walletd_balance_ledger_drifts{chain="ethereum",network="devnet"} 0');
  });
});
