import { randomBytes } from 'node:crypto';
import { type ChainSettings, MasterKey } from '@walletd/core';
import { type UtxoTxPayload, addressOfScript, scriptOf, utxoNetwork } from '@walletd/plugin-utxo';
import { addPolicy } from '@walletd/server';
import {
  type ConsoleServer,
  type RegtestNode,
  type TestDatabase,
  baseUnits,
  createTestDatabase,
  describeWithLitecoind,
  onboardMember,
  startConsole,
  startLitecoind,
  sweepBench,
  asLitecoind,
} from '@walletd/test-harness';

const sats = (btc: string) => baseUnits(btc, 8);

/**
 * A UTXO consolidation above an approval limit (issue 33): the run proposes it and stops; a member
 * approves it in the console (password and TOTP); the withdrawal then prepared is the consolidation
 * the run would have sent (every coin of the addresses, one output, no change, the rule's fee rate),
 * not a payout's coin selection with change at the node's rate.
 */
describeWithLitecoind('an approved consolidation sweep on a regtest node', () => {
  let t: TestDatabase;
  let node: RegtestNode;
  let con: ConsoleServer;
  let walletId: number;
  let treasury: string;
  const deposits: { address: string; amount: bigint }[] = [];
  const key = new MasterKey(randomBytes(32));
  const b = sweepBench(key);
  const { api, addRule, runSweeps } = b;
  const net = utxoNetwork('bitcoin', 'regtest');
  const nodeParams = asLitecoind(net);
  const toNode = (address: string) => addressOfScript(nodeParams, scriptOf(net, address)) as string;

  beforeAll(async () => {
    t = await createTestDatabase();
    node = await startLitecoind();
    const settings: ChainSettings = {
      chain: 'bitcoin',
      network: 'regtest',
      rpcUrl: node.url,
      confirmations: 1,
      startBlock: (await node.rpc<number>('getblockcount')) + 1,
    };
    await b.start(t.db, settings);
    con = await startConsole(t.db, { chains: [settings] }, key);
    walletId = await b.newWallet('btc');
    treasury = await b.newAddress(walletId);
    for (let i = 0; i < 4; i++) deposits.push({ address: await b.newAddress(walletId), amount: sats('0.2') + sats('0.01') * BigInt(i) });
    for (const d of deposits) await node.rpc('sendtoaddress', [toNode(d.address), (Number(d.amount) / 1e8).toFixed(8)]);
    await node.mine(1);
    await b.follower.tick();
  });
  afterAll(async () => {
    await con?.close();
    await b.stop();
    await node?.stop();
    await t?.drop();
  });

  it('waits for approval, then sends the consolidation: four inputs, one output, fee = rate × vsize', async () => {
    await addPolicy(t.db, {
      companyId: b.seeded.companyId,
      name: 'big sweeps',
      kind: 'approval_above',
      walletIds: [walletId],
      assetKey: 'bitcoin:regtest:btc',
      threshold: sats('0.5'),
      approvals: 1,
    });
    const rule = await addRule(walletId, {
      asset: 'BTC',
      destination: treasury,
      threshold: '0.05',
      trigger: 'schedule',
      intervalSeconds: 3600,
      feeRate: 7,
    });
    expect(rule.status).toBe(201);
    const now = Date.now();
    expect(await runSweeps(now)).toMatchObject({ sent: 0, awaitingApproval: 1, failed: 0 });
    expect(await b.withdrawals(walletId)).toEqual([]);
    const requests = (await api('GET', '/withdrawal-requests?status=pending')).body.requests as { id: number; amount: string }[];
    expect(requests).toHaveLength(1);
    const request = requests[0] as { id: number; amount: string };
    // 11 + 31 + 4 × 68 = 314 vbytes at 7 sat/vB.
    const sum = deposits.reduce((n, d) => n + d.amount, 0n);
    const fee = 314n * 7n;
    expect(sats(request.amount)).toBe(sum - fee);

    const alice = await onboardMember(con, t.db, { companyId: b.seeded.companyId, email: 'alice@acme.test', role: 'admin' });
    const voted = await alice.b.call('POST', `/console/api/requests/${request.id}/approve`);
    expect(voted.status).toBe(200);
    expect(voted.body).toMatchObject({ prepared: true, request: { status: 'approved' } });

    // The runner signs and sends it (an approved sweep is the rule's unfinished work).
    expect(await runSweeps(now)).toMatchObject({ failed: 0 });
    const list = await b.withdrawals(walletId);
    expect(list).toHaveLength(1);
    const w = list[0] as (typeof list)[number] & { txHash: string };
    expect(w).toMatchObject({ kind: 'sweep', sweepRuleId: rule.body.id, status: 'broadcast', toAddress: treasury });
    expect([...w.sourceAddresses].sort()).toEqual(deposits.map((d) => d.address).sort());
    expect(sats(w.amount)).toBe(sum - fee);
    const tx = await node.rpc<{ vin: unknown[]; vout: unknown[] }>('getrawtransaction', [w.txHash, true]);
    expect(tx.vin).toHaveLength(4);
    expect(tx.vout).toHaveLength(1);
    const payload = (await t.db('withdrawals').where({ id: w.id }).first('unsigned_tx')).unsigned_tx.payload as UtxoTxPayload;
    expect(payload).toMatchObject({ vsize: 314, feeRate: '7' });
    const mempool = await node.rpc<{ fees: { base: number } }>('getmempoolentry', [w.txHash]);
    expect(sats(mempool.fees.base.toFixed(8))).toBe(fee);
  });

  it('coins that moved since the proposal: the approval stands, nothing is prepared, and the reason names both figures', async () => {
    const [a, b2] = [deposits[0], deposits[1]] as [{ address: string }, { address: string }];
    await node.rpc('sendtoaddress', [toNode(a.address), '0.3']);
    await node.rpc('sendtoaddress', [toNode(b2.address), '0.4']);
    await node.mine(1);
    await b.follower.tick();
    // The next schedule window: a consolidation of the two addresses, above the limit.
    expect(await runSweeps(Date.now() + 3_600_000)).toMatchObject({ sent: 0, awaitingApproval: 1, failed: 0 });
    const request = ((await api('GET', '/withdrawal-requests?status=pending')).body.requests as { id: number; amount: string }[])[0];
    // 11 + 31 + 2 × 68 = 178 vbytes at 7 sat/vB.
    expect(sats(request?.amount ?? '0')).toBe(sats('0.7') - 178n * 7n);
    // Another deposit to one of them before the vote: their consolidation would now pay more than was approved.
    await node.rpc('sendtoaddress', [toNode(a.address), '0.1']);
    await node.mine(1);
    await b.follower.tick();
    const bob = await onboardMember(con, t.db, { companyId: b.seeded.companyId, email: 'bob@acme.test', role: 'admin' });
    const voted = await bob.b.call('POST', `/console/api/requests/${request?.id}/approve`);
    expect(voted.body).toMatchObject({ prepared: false, withdrawal: null, request: { status: 'approved', withdrawalId: null } });
    expect(voted.body.reason).toMatch(
      /coins of this sweep's addresses changed since it was proposed: their consolidation now comes to 0\.\d+ BTC, 0\.69998754 BTC was approved/,
    );
    expect((await b.withdrawals(walletId)).filter((w) => w.status === 'prepared')).toEqual([]);
  });
});
