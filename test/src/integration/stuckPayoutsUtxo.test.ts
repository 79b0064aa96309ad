import { randomBytes } from 'node:crypto';
import { type ChainSettings, MasterKey, fromBaseUnits, toBaseUnits } from '@walletd/core';
import { createDetectPool, type DetectPool, type Follower } from '@walletd/indexer';
import { addressOfScript, scriptOf, utxoNetwork } from '@walletd/plugin-utxo';
import {
  type RegtestNode,
  type Seeded,
  type TestApp,
  type TestDatabase,
  asLitecoind,
  call,
  createTestDatabase,
  describeWithLitecoind,
  expectSchema,
  seedCompany,
  startLitecoind,
  startTestApp,
  testFollower,
} from '@walletd/test-harness';

const btc = (units: bigint) => fromBaseUnits(units, 8);
const sat = (s: string) => toBaseUnits(s, 8);

interface NodeTx {
  vin: { txid: string; vout: number; sequence: number }[];
  vout: { value: number; scriptPubKey: { hex: string } }[];
}
interface MempoolEntry {
  vsize: number;
  fees: { base: number };
  'bip125-replaceable': boolean;
}

/**
 * Issue 46 §3 on a litecoind regtest node (bitcoin regtest encoding, the same scripts): walletd's
 * payouts signal BIP-125; a payout left out of blocks is replaced by an RBF speed-up (the same
 * inputs and recipient, the higher fee taken from the change) that the test mines alone with
 * `generateblock`, and another by an RBF cancel (every input back to the change address, less the
 * fee). The wallet's balances through the API are exact to the satoshi at every step, and the
 * replacements' change is never a deposit.
 */
describeWithLitecoind('stuck bitcoin-family payouts: RBF speed-up and cancel', () => {
  let t: TestDatabase;
  let node: RegtestNode;
  let pool: DetectPool;
  let app: TestApp;
  let s: Seeded;
  let follower: Follower;
  let walletId: number;
  let credited = sat('1');
  const masterKey = new MasterKey(randomBytes(32));
  const net = utxoNetwork('bitcoin', 'regtest');
  const nodeParams = asLitecoind(net);
  const toNode = (address: string) => addressOfScript(nodeParams, scriptOf(net, address)) as string;
  const fromNode = (address: string) => addressOfScript(net, scriptOf(nodeParams, address)) as string;
  const api = (method: string, path: string, body?: unknown) => call(app.url, method, `/v1${path}`, { key: s.rootKey, body });
  const balances = async () => {
    const res = await api('GET', `/wallets/${walletId}/balances?onchain=true`);
    expect(res.status).toBe(200);
    const b = res.body.balances.find((x: { asset: { key: string } }) => x.asset.key === 'bitcoin:regtest:btc');
    return { confirmed: b?.confirmed, reserved: b?.reserved, available: b?.available, onchain: b?.onchain };
  };
  const get = async (id: number) => {
    const res = await api('GET', `/withdrawals/${id}`);
    expect(res.status).toBe(200);
    expectSchema('Withdrawal', res.body);
    return res.body;
  };
  const entry = (txid: string) => node.rpc<MempoolEntry>('getmempoolentry', [txid]);
  const rawTx = (txid: string) => node.rpc<NodeTx>('getrawtransaction', [txid, true]);
  /** Mines one block holding exactly `txids` (nothing else from the mempool). */
  const mineOnly = async (txids: string[]) => node.rpc('generateblock', [await node.rpc<string>('getnewaddress'), txids]);
  const depositEvents = async () => t.db('events').where('type', 'like', 'deposit.%').count<{ count: string }[]>('* as count');
  /** A payout broadcast now and left out of blocks (the test mines only what it chooses). */
  const stuckPayout = async (key: string, amount: string) => {
    const to = fromNode(await node.rpc<string>('getnewaddress'));
    const prepared = await api('POST', `/wallets/${walletId}/withdrawals`, { asset: 'BTC', toAddress: to, amount, idempotencyKey: key });
    expect(prepared.status).toBe(201);
    const sent = await api('POST', `/withdrawals/${prepared.body.id}/broadcast`);
    expect(sent.body.status).toBe('broadcast');
    await follower.tick();
    expect((await get(prepared.body.id)).status).toBe('broadcast');
    const txHash = sent.body.txHash as string;
    return { id: prepared.body.id as number, to, txHash, fee: sat(String((await entry(txHash)).fees.base)) };
  };

  beforeAll(async () => {
    t = await createTestDatabase();
    node = await startLitecoind();
    pool = createDetectPool(1);
    const settings: ChainSettings = {
      chain: 'bitcoin',
      network: 'regtest',
      rpcUrl: node.url,
      confirmations: 1,
      startBlock: (await node.rpc<number>('getblockcount')) + 1,
    };
    app = await startTestApp(t.db, { chains: [settings], rateLimit: { writesPerKeyPerMinute: 1000 } }, masterKey);
    follower = testFollower(t.db, pool, settings);
    s = await seedCompany(t.db);
    walletId = (await api('POST', '/wallets', { name: 'btc', chain: 'bitcoin', network: 'regtest' })).body.id;
    const a = (await api('POST', `/wallets/${walletId}/addresses`)).body.address;
    await node.rpc('sendtoaddress', [toNode(a), '1']);
    await node.mine(1);
    await follower.tick();
    expect(await balances()).toMatchObject({ confirmed: '1', reserved: '0', onchain: '1' });
  });
  afterAll(async () => {
    await app.close();
    await pool.close();
    await node.stop();
    await t.drop();
  });

  it('signals BIP-125 and an RBF speed-up pays the same recipient with a higher fee from the change; mined, it confirms once', async () => {
    const before = Number(await depositEvents().then((r) => r[0]?.count));
    const p = await stuckPayout('rbf-speed-1', '0.3');
    const original = await rawTx(p.txHash);
    expect(original.vin.every((i) => i.sequence === 0xfffffffd)).toBe(true);
    expect((await entry(p.txHash))['bip125-replaceable']).toBe(true);
    expect(await balances()).toMatchObject({ confirmed: '1', reserved: btc(sat('0.3') + p.fee) });

    // A cap below the replacement rules is refused before anything is signed.
    const low = await api('POST', `/withdrawals/${p.id}/speed-up`, { replaces: p.txHash, maxFeeRate: '1' });
    expect(low.status).toBe(422);
    expect(low.body.code).toBe('unprocessable');
    expect((await get(p.id)).attempts ?? []).toHaveLength(0);

    const sped = await api('POST', `/withdrawals/${p.id}/speed-up`, { replaces: p.txHash });
    expect(sped.status).toBe(200);
    expectSchema('Withdrawal', sped.body);
    // The withdrawal's txHash stays the original's until one lands; the replacement is the latest attempt.
    expect(sped.body.txHash).toBe(p.txHash);
    const newHash: string = sped.body.attempts[1].txHash;
    expect(newHash).not.toBe(p.txHash);
    expect(sped.body.attempts.map((a: { kind: string }) => a.kind)).toEqual(['original', 'speed_up']);
    // The node replaced the original: it left the mempool, the replacement is there.
    const pool1 = await node.rpc<string[]>('getrawmempool', []);
    expect(pool1).toContain(newHash);
    expect(pool1).not.toContain(p.txHash);
    const e = await entry(newHash);
    const newFee = sat(String(e.fees.base));
    expect(sped.body.attempts[1]).toMatchObject({ txHash: newHash, feeCap: { amount: btc(newFee) } });
    // BIP-125 rules 3 and 4: a higher absolute fee, by at least 1 sat/vB (regtest's incremental fee) over its size.
    expect(newFee - p.fee >= BigInt(e.vsize)).toBe(true);
    // Same inputs, the recipient paid the same, the change lower by exactly the extra fee.
    const replacement = await rawTx(newHash);
    expect(replacement.vin.map((i) => `${i.txid}:${i.vout}`)).toEqual(original.vin.map((i) => `${i.txid}:${i.vout}`));
    const outs = (tx: NodeTx) => tx.vout.map((o) => [o.scriptPubKey.hex, sat(String(o.value))] as const);
    const [[payScript, paid], [changeScript, change]] = outs(original) as [readonly [string, bigint], readonly [string, bigint]];
    expect(outs(replacement)).toEqual([
      [payScript, paid],
      [changeScript, change - (newFee - p.fee)],
    ]);
    expect(paid).toBe(sat('0.3'));
    // The reservation covers the new fee.
    expect(await balances()).toMatchObject({ confirmed: '1', reserved: btc(sat('0.3') + newFee) });

    await mineOnly([newHash]);
    await follower.tick();
    const done = await get(p.id);
    expect(done).toMatchObject({ status: 'confirmed', txHash: newHash, fee: { amount: btc(newFee) } });
    const confirmed = await t.db('events').where({ type: 'withdrawal.confirmed' }).pluck('body');
    expect(confirmed.map((b: string) => JSON.parse(b).data).filter((d: { withdrawalId: number }) => d.withdrawalId === p.id)).toEqual([
      expect.objectContaining({ txHash: newHash, fee: expect.objectContaining({ amount: btc(newFee) }) }),
    ]);
    credited -= sat('0.3') + newFee;
    // Exact to the satoshi, the change counted once (never a deposit), the chain agreeing.
    expect(await balances()).toEqual({ confirmed: btc(credited), reserved: '0', available: btc(credited), onchain: btc(credited) });
    expect(Number(await depositEvents().then((r) => r[0]?.count))).toBe(before);
    await follower.tick();
    expect(await balances()).toMatchObject({ confirmed: btc(credited), onchain: btc(credited) });
  });

  it('an RBF cancel pays every input back to the change address less its fee; mined, the payout ends rejected cancelled_onchain', async () => {
    const before = Number(await depositEvents().then((r) => r[0]?.count));
    const p = await stuckPayout('rbf-cancel-1', '0.2');
    const original = await rawTx(p.txHash);
    const inputs = (await Promise.all(original.vin.map(async (i) => sat(String((await rawTx(i.txid)).vout[i.vout]?.value))))).reduce(
      (a, b) => a + b,
      0n,
    );

    const cancelled = await api('POST', `/withdrawals/${p.id}/cancel-onchain`, { replaces: p.txHash });
    expect(cancelled.status).toBe(200);
    const cancelHash: string = cancelled.body.attempts[1].txHash;
    expect(cancelled.body.attempts.map((a: { kind: string }) => a.kind)).toEqual(['original', 'cancel']);
    // Speeding up a cancel is refused; cancelling again changes nothing.
    expect((await api('POST', `/withdrawals/${p.id}/speed-up`, {})).status).toBe(409);
    expect((await api('POST', `/withdrawals/${p.id}/cancel-onchain`, {})).body.attempts).toHaveLength(2);

    const e = await entry(cancelHash);
    const fee = sat(String(e.fees.base));
    expect(fee - p.fee >= BigInt(e.vsize)).toBe(true);
    const change = await t.db('addresses').where({ wallet_id: walletId, kind: 'change' }).first('address');
    const tx = await rawTx(cancelHash);
    expect(tx.vin.map((i) => `${i.txid}:${i.vout}`)).toEqual(original.vin.map((i) => `${i.txid}:${i.vout}`));
    expect(tx.vout.map((o) => [o.scriptPubKey.hex, sat(String(o.value))])).toEqual([
      [Buffer.from(scriptOf(net, change.address)).toString('hex'), inputs - fee],
    ]);
    // Only one can land: the payout (0.2 and its fee) or the cancel (its fee); the larger is held.
    expect(await balances()).toMatchObject({ confirmed: btc(credited), reserved: btc(sat('0.2') + p.fee) });

    await mineOnly([cancelHash]);
    await follower.tick();
    const done = await get(p.id);
    expect(done).toMatchObject({ status: 'rejected', reason: 'cancelled_onchain', txHash: cancelHash, fee: { amount: btc(fee) } });
    const rejected = (await t.db('events').where({ type: 'withdrawal.rejected' }).pluck('body')).map((b: string) => JSON.parse(b).data);
    expect(rejected.filter((d: { withdrawalId: number }) => d.withdrawalId === p.id)).toEqual([
      expect.objectContaining({ reason: 'cancelled_onchain', txHash: cancelHash, fee: expect.objectContaining({ amount: btc(fee) }) }),
    ]);
    credited -= fee;
    expect(await balances()).toEqual({ confirmed: btc(credited), reserved: '0', available: btc(credited), onchain: btc(credited) });
    expect(Number(await depositEvents().then((r) => r[0]?.count))).toBe(before);
    // The recipient got nothing.
    expect(await node.rpc<number>('getreceivedbyaddress', [toNode(p.to), 0])).toBe(0);
  });

  it('a payout without change cannot be sped up (422, nothing signed); it can still be cancelled', async () => {
    // The wallet's one coin less a fee of 110 vB at 1 sat/vB and 500 base units of change, below dust: no change output.
    const p = await stuckPayout('rbf-no-change', btc(credited - 610n));
    const tx = await rawTx(p.txHash);
    expect(tx.vout).toHaveLength(1);
    const refused = await api('POST', `/withdrawals/${p.id}/speed-up`, { replaces: p.txHash });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({
      code: 'unprocessable',
      message: expect.stringMatching(/no change output.*cancel it on chain instead/),
    });
    expect(await t.db('withdrawal_attempts').where({ withdrawal_id: p.id })).toHaveLength(0);
    expect(await node.rpc<string[]>('getrawmempool', [])).toContain(p.txHash);
    const cancelled = await api('POST', `/withdrawals/${p.id}/cancel-onchain`, { replaces: p.txHash });
    expect(cancelled.status).toBe(200);
    const cancelHash: string = cancelled.body.attempts[1].txHash;
    const fee = sat(String((await entry(cancelHash)).fees.base));
    await mineOnly([cancelHash]);
    await follower.tick();
    expect(await get(p.id)).toMatchObject({ status: 'rejected', reason: 'cancelled_onchain' });
    credited -= fee;
    expect(await balances()).toEqual({ confirmed: btc(credited), reserved: '0', available: btc(credited), onchain: btc(credited) });
  });
});
