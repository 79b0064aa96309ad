import { randomBytes } from 'node:crypto';
import { type ChainSettings, MasterKey } from '@walletd/core';
import { addPolicy } from '@walletd/server';
import {
  type ConsoleServer,
  type SolanaSvmNode,
  type TestDatabase,
  baseUnits,
  createTestDatabase,
  onboardMember,
  startConsole,
  startSolanaSvm,
  sweepBench,
} from '@walletd/test-harness';

const SOL = 1_000_000_000n;

/**
 * A Solana token sweep above an approval limit (issue 33): once a member approves it in the
 * console, it is prepared as the runner prepares an unapproved one, the gas station paying the
 * fee, never another address of the wallet (here the treasury, which holds SOL, would otherwise
 * be the first to pay).
 */
describe('an approved Solana token sweep: the gas station pays its fee (litesvm)', () => {
  let t: TestDatabase;
  let node: SolanaSvmNode;
  let con: ConsoleServer;
  let walletId: number;
  let mint: string;
  let treasury: string;
  let deposit: string;
  let station: string;
  const key = new MasterKey(randomBytes(32));
  const b = sweepBench(key);
  const { api, addRule, runSweeps } = b;
  const lamports = (a: string): bigint => node.svm.getBalance(a as never) ?? 0n;

  beforeAll(async () => {
    t = await createTestDatabase();
    node = await startSolanaSvm({ priorityFee: 1_000n });
    mint = await node.createMint(6);
    const settings: ChainSettings = {
      chain: 'solana',
      network: 'localnet',
      rpcUrl: node.url,
      startBlock: Number(node.slot) + 1,
      tokens: [{ contract: mint, symbol: 'USDC', decimals: 6 }],
    };
    await b.start(t.db, settings);
    con = await startConsole(t.db, { chains: [settings] }, key);
    walletId = await b.newWallet('sol');
    treasury = await b.newAddress(walletId);
    deposit = await b.newAddress(walletId);
    station = (await b.gasStation(walletId)).body.address;
    await b.follower.tick(); // registers the deposit address's token account for the listed mint
    await node.sendSol(station, SOL);
    await node.sendSol(treasury, SOL);
    await node.mintTo(mint, deposit, 5_000_000n, 6);
    node.produceBlocks(3);
    await b.follower.tick();
  });
  afterAll(async () => {
    await con?.close();
    await b.stop();
    await node?.close();
    await t?.drop();
  });

  it('waits for approval, then the station signs as fee payer and pays the fee', async () => {
    const rule = await addRule(walletId, { asset: 'USDC', destination: treasury });
    expect(rule.status).toBe(201);
    await addPolicy(t.db, {
      companyId: b.seeded.companyId,
      name: 'big sweeps',
      kind: 'approval_above',
      walletIds: [walletId],
      assetKey: rule.body.asset.key,
      threshold: 1_000_000n,
      approvals: 1,
    });
    expect(await runSweeps()).toMatchObject({ sent: 0, awaitingApproval: 1, failed: 0 });
    const requests = (await api('GET', '/withdrawal-requests?status=pending')).body.requests as { id: number; amount: string }[];
    expect(requests.map((r) => r.amount)).toEqual(['5']);

    const alice = await onboardMember(con, t.db, { companyId: b.seeded.companyId, email: 'alice@acme.test', role: 'admin' });
    const voted = await alice.b.call('POST', `/console/api/requests/${requests[0]?.id}/approve`);
    expect(voted.body).toMatchObject({ prepared: true, request: { status: 'approved' } });

    const stationBefore = lamports(station);
    const treasuryBefore = lamports(treasury);
    expect(await runSweeps()).toMatchObject({ failed: 0 });
    node.produceBlocks(3);
    await b.follower.tick();
    const list = await b.withdrawals(walletId);
    expect(list).toHaveLength(1);
    const detail = (await api('GET', `/withdrawals/${list[0]?.id}`)).body;
    expect(detail).toMatchObject({ status: 'confirmed', kind: 'sweep', sweepRuleId: rule.body.id, amount: '5', toAddress: treasury });
    // The deposit address gives the tokens, the station signs and pays the fee (and the treasury's token account rent).
    expect(detail.sourceAddresses).toEqual([deposit, station]);
    expect(lamports(treasury)).toBe(treasuryBefore);
    expect(stationBefore - lamports(station)).toBe(baseUnits(detail.fee.amount, 9));
  });
});
