import { type ChainSettings, ensureMonthPartitions } from '@walletd/core';
import { addressOfScript, scriptOf, utxoNetwork } from '@walletd/plugin-utxo';
import { archiveMonth, compareLedger } from '@walletd/server';
import {
  type RegtestNode,
  type TestDatabase,
  baseUnits,
  createTestDatabase,
  describeWithLitecoind,
  startLitecoind,
  sweepBench,
  asLitecoind,
} from '@walletd/test-harness';

const sats = (btc: string) => baseUnits(btc, 8);

/**
 * Issue 32: a UTXO consolidation rule with trigger deposit names its run by the wallet's latest
 * confirmed deposit; when every deposit lies in a month taken out by `walletd archive-month`, that
 * deposit is the one recorded as the month left, so the coins there are still consolidated (the
 * runner used to find no deposit and sent nothing).
 */
describeWithLitecoind('UTXO consolidation after a month is archived', () => {
  let t: TestDatabase;
  let node: RegtestNode;
  const chain = { chain: 'bitcoin', network: 'regtest' };
  const b = sweepBench();
  const net = utxoNetwork('bitcoin', 'regtest');
  const nodeParams = asLitecoind(net);
  /** Between walletd's encoding (bitcoin regtest) and the node's (litecoin regtest): the same script. */
  const toNode = (address: string) => addressOfScript(nodeParams, scriptOf(net, address)) as string;

  beforeAll(async () => {
    t = await createTestDatabase();
    for (const table of ['transfers', 'events'] as const) await ensureMonthPartitions(t.db, table, { from: new Date('2025-01-01') });
    node = await startLitecoind();
    const settings: ChainSettings = {
      ...chain,
      rpcUrl: node.url,
      confirmations: 1,
      startBlock: (await node.rpc<number>('getblockcount')) + 1,
    };
    await b.start(t.db, settings);
  });
  afterAll(async () => {
    await b.stop();
    await node.stop();
    await t.drop();
  });

  it('consolidates coins whose deposits are all archived, once', async () => {
    const walletId = await b.newWallet('btc');
    const treasury = await b.newAddress(walletId);
    for (const amount of ['0.1', '0.2']) await node.rpc('sendtoaddress', [toNode(await b.newAddress(walletId)), amount]);
    await node.mine(1);
    await b.follower.tick();
    await t.db.raw(`update transfers set created_at = '2025-01-15T00:00:00Z'`);
    const archived = await archiveMonth(t.db, { month: '2025-01', tables: ['transfers'] });
    expect(archived.tables).toEqual([expect.objectContaining({ outcome: 'archived', rows: 2 })]);
    expect(await compareLedger(t.db, chain)).toEqual([]);

    const rule = await b.addRule(walletId, { asset: 'BTC', destination: treasury, threshold: '0.05', trigger: 'deposit', feeRate: 2 });
    expect(rule.status).toBe(201);
    expect(await b.runSweeps()).toMatchObject({ rules: 1, sent: 1, failed: 0 });
    expect(await b.runSweeps()).toMatchObject({ sent: 0, failed: 0 });
    const sweeps = await b.withdrawals(walletId);
    expect(sweeps.map((w) => [w.kind, w.sourceAddresses.length])).toEqual([['sweep', 2]]);
    expect(sats(sweeps[0]?.amount ?? '0')).toBeLessThan(sats('0.3'));
  });
});
