import type { ChainSettings } from '@walletd/core';
import { type UtxoTxPayload, addressOfScript, scriptOf, utxoNetwork } from '@walletd/plugin-utxo';
import {
  type RegtestNode,
  type TestDatabase,
  baseUnits,
  createTestDatabase,
  describeWithLitecoind,
  expectSchema,
  startLitecoind,
  sweepBench,
  asLitecoind,
} from '@walletd/test-harness';

const sats = (btc: string) => baseUnits(btc, 8);

/**
 * UTXO consolidation sweeps (issue 33) on a regtest node: ten deposits on ten addresses, one rule,
 * one transaction with ten inputs and one output; the treasury receives the sum less exactly the
 * fee at the rule's fee rate, the wallet's balance drops by that fee only, and the events name
 * the sweep and its rule.
 */
describeWithLitecoind('UTXO consolidation sweeps on a regtest node', () => {
  let t: TestDatabase;
  let node: RegtestNode;
  let walletId: number;
  let treasury: string;
  let below: string;
  const deposits: { address: string; amount: bigint }[] = [];
  const chain = { chain: 'bitcoin', network: 'regtest' };
  const b = sweepBench();
  const { api, addRule, runSweeps } = b;
  const net = utxoNetwork('bitcoin', 'regtest');
  const nodeParams = asLitecoind(net);
  /** Between walletd's encoding (bitcoin regtest) and the node's (litecoin regtest): the same script. */
  const toNode = (address: string) => addressOfScript(nodeParams, scriptOf(net, address)) as string;
  const round = async (blocks: number) => {
    await node.mine(blocks);
    await b.follower.tick();
  };
  /** What the node's UTXO set holds at an address (the node's wallet does not know walletd's addresses). */
  const heldOnNode = async (address: string) => {
    const scan = await node.rpc<{ total_amount: number }>('scantxoutset', [
      'start',
      [`raw(${Buffer.from(scriptOf(net, address)).toString('hex')})`],
    ]);
    return sats(scan.total_amount.toFixed(8));
  };
  const newAddress = () => b.newAddress(walletId);
  const btcBalance = async () => {
    const body = (await api('GET', `/wallets/${walletId}/balances?onchain=true`)).body;
    return body.balances.find((b: { asset: { key: string } }) => b.asset.key === 'bitcoin:regtest:btc') as {
      confirmed: string;
      onchain: string;
    };
  };

  beforeAll(async () => {
    t = await createTestDatabase();
    node = await startLitecoind();
    const settings: ChainSettings = {
      ...chain,
      rpcUrl: node.url,
      confirmations: 1,
      startBlock: (await node.rpc<number>('getblockcount')) + 1,
    };
    await b.start(t.db, settings);
    walletId = await b.newWallet('btc');
    treasury = await newAddress();
    for (let i = 0; i < 10; i++) deposits.push({ address: await newAddress(), amount: sats('0.1') + sats('0.01') * BigInt(i) });
    below = await newAddress();
    for (const d of deposits) await node.rpc('sendtoaddress', [toNode(d.address), (Number(d.amount) / 1e8).toFixed(8)]);
    await node.rpc('sendtoaddress', [toNode(below), '0.01']);
    await round(1);
  });
  afterAll(async () => {
    await b.stop();
    await node.stop();
    await t.drop();
  });

  it('refuses what a consolidation cannot do: minLeft, and a fee rate outside the network floor and cap', async () => {
    const base = { asset: 'BTC', destination: treasury, threshold: '0.05', trigger: 'schedule', intervalSeconds: 3600 };
    const kept = await addRule(walletId, { ...base, minLeft: '0.01' });
    expect(kept.body).toMatchObject({ statusCode: 400, code: 'validation_failed', message: expect.stringMatching(/minLeft must be "0"/) });
    const zero = await addRule(walletId, { ...base, feeRate: 0 });
    expect(zero.status).toBe(400);
  });

  it('consolidates ten addresses into one transaction of ten inputs: the treasury gets the sum less exactly the fee', async () => {
    const created = await addRule(walletId, {
      asset: 'BTC',
      destination: treasury,
      threshold: '0.05',
      trigger: 'schedule',
      intervalSeconds: 3600,
      feeRate: 7,
    });
    expect(created.status).toBe(201);
    expectSchema('SweepRule', created.body);
    expect(created.body).toMatchObject({ feeRate: 7, minLeft: '0' });
    const ruleId = created.body.id as number;
    const before = await btcBalance();

    const now = Date.now();
    expect(await runSweeps(now)).toMatchObject({ rules: 1, sent: 1, failed: 0 });
    const list = (await api('GET', `/wallets/${walletId}/withdrawals`)).body.withdrawals as {
      id: number;
      kind: string;
      sweepRuleId: number;
      status: string;
      amount: string;
      toAddress: string;
      sourceAddresses: string[];
      txHash: string;
    }[];
    expect(list).toHaveLength(1);
    const w = list[0] as (typeof list)[number];
    expect(w).toMatchObject({ kind: 'sweep', sweepRuleId: ruleId, status: 'broadcast', toAddress: treasury });
    expect([...w.sourceAddresses].sort()).toEqual(deposits.map((d) => d.address).sort());

    const tx = await node.rpc<{ vin: unknown[]; vout: { value: number }[] }>('getrawtransaction', [w.txHash, true]);
    expect(tx.vin).toHaveLength(10);
    expect(tx.vout).toHaveLength(1);
    const sum = deposits.reduce((n, d) => n + d.amount, 0n);
    const payload = (await t.db('withdrawals').where({ id: w.id }).first('unsigned_tx')).unsigned_tx.payload as UtxoTxPayload;
    // 11 + one 31-byte output + ten 68-byte P2WPKH inputs (docs/guide/sweeps-and-gas.md, "UTXO consolidation").
    expect(payload.vsize).toBe(722);
    const fee = BigInt(payload.vsize) * 7n;
    expect(payload.feeRate).toBe('7');
    expect(sats(w.amount)).toBe(sum - fee);
    // The node's own view of the fee: inputs less outputs.
    const mempool = await node.rpc<{ fees: { base: number }; vsize: number }>('getmempoolentry', [w.txHash]);
    expect(sats(mempool.fees.base.toFixed(8))).toBe(fee);
    expect(BigInt(mempool.vsize)).toBeLessThanOrEqual(BigInt(payload.vsize));

    await round(1);
    const done = await api('GET', `/withdrawals/${w.id}`);
    expectSchema('Withdrawal', done.body);
    expect(done.body).toMatchObject({ status: 'confirmed', fee: { amount: (Number(fee) / 1e8).toFixed(8).replace(/0+$/, '') } });
    expect(await heldOnNode(treasury)).toBe(sum - fee);
    // The wallet holds what it held less the fee; walletd and the node agree; the small address is untouched.
    const after = await btcBalance();
    expect(sats(after.confirmed)).toBe(sats(before.confirmed) - fee);
    expect(after.confirmed).toBe(after.onchain);
    expect(await heldOnNode(below)).toBe(sats('0.01'));
    for (const d of deposits) expect(await heldOnNode(d.address)).toBe(0n);

    const feed = await b.feed({ atLeast: 2, of: (e) => e.type.startsWith('withdrawal.') });
    const sweepEvents = feed.filter((e) => e.type.startsWith('withdrawal.'));
    expect(sweepEvents.map((e) => e.type).sort()).toEqual(['withdrawal.broadcast', 'withdrawal.confirmed']);
    for (const e of sweepEvents) expect(e.data).toMatchObject({ kind: 'sweep', sweepRuleId: ruleId });
    expect(feed.filter((e) => e.type === 'deposit.detected' && JSON.stringify(e.data).includes(w.txHash))).toEqual([]);

    // Again in the same window: nothing more is sent.
    expect(await runSweeps(now)).toMatchObject({ sent: 0, failed: 0 });
    expect((await api('GET', `/wallets/${walletId}/withdrawals`)).body.withdrawals).toHaveLength(1);
  });

  it('with trigger deposit: a new deposit opens a run that consolidates the addresses then due, once', async () => {
    const rules = (await api('GET', `/wallets/${walletId}/sweep-rules`)).body.rules as { id: number }[];
    const ruleId = rules[0]?.id as number;
    expect((await api('PATCH', `/wallets/${walletId}/sweep-rules/${ruleId}`, { trigger: 'deposit' })).status).toBe(200);
    // Nothing new since the first consolidation: this run finds nothing to gather.
    expect(await runSweeps()).toMatchObject({ sent: 0, failed: 0 });
    const [a, b] = [deposits[0], deposits[1]] as [{ address: string }, { address: string }];
    await node.rpc('sendtoaddress', [toNode(a.address), '0.3']);
    await node.rpc('sendtoaddress', [toNode(b.address), '0.2']);
    await round(1);
    expect(await runSweeps()).toMatchObject({ sent: 1, failed: 0 });
    expect(await runSweeps()).toMatchObject({ sent: 0, failed: 0 });
    const list = (await api('GET', `/wallets/${walletId}/withdrawals`)).body.withdrawals as { sourceAddresses: string[]; amount: string }[];
    expect(list).toHaveLength(2);
    const latest = list.find((w) => w.sourceAddresses.length === 2) as { sourceAddresses: string[]; amount: string };
    expect([...latest.sourceAddresses].sort()).toEqual([a.address, b.address].sort());
    // Two P2WPKH inputs, one output: 11 + 31 + 2 × 68 = 178 vbytes at 7 sat/vB.
    expect(sats(latest.amount)).toBe(sats('0.5') - 178n * 7n);
  });
});
