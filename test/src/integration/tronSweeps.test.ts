import type { ChainSettings } from '@walletd/core';
import { gasForSweep } from '@walletd/server';
import {
  PAYER,
  type RecordedTronNode,
  type SweepWithdrawal,
  type TestDatabase,
  USDT,
  baseUnits,
  createTestDatabase,
  expectSchema,
  startRecordedTronNode,
  sweepBench,
} from '@walletd/test-harness';

const TRX = 1_000_000n;
const USDT_UNIT = 1_000_000n;
const sun = (decimal: string) => baseUnits(decimal, 6);
/** The fee bound of a USDT transfer on this server: 130,285 energy (the recorded 0130dfde) × 100 sun × 1.3. */
const SWEEP_FEE = 16_937_050n;
/** What the station sends: that bound + 25%, rounded up. */
const TOP_UP = (SWEEP_FEE * 125n + 99n) / 100n;
/** What the sweep burns: the recorded transfer's energy at 100 sun (its ~345 bytes use the free bandwidth). */
const BURNED = 13_028_500n;
/** The station's fee for each top-up: activating the address (1 TRX) + its bandwidth burned (0.1 TRX). */
const ACTIVATION = 1_100_000n;

/**
 * The gas station on Tron (issue 33) against the recorded-response server, through the API, the
 * follower and the runner the indexer leads. Ten deposit addresses received USDT and never held TRX
 * (receiving a TRC-20 token does not make an address a Tron account). The first run sends each
 * the USDT transfer's fee bound + 25% from the station; that TRX transfer creates the account (the
 * station pays 1.1 TRX for it); the next run sweeps the USDT. What the server decides rather than
 * executes: the energy (the recorded transfer's 130,285 for every call) and the outcome (SUCCESS).
 */
describe('gas station on Tron (recorded-response server)', () => {
  let t: TestDatabase;
  let node: RecordedTronNode;
  const chain = { chain: 'tron', network: 'devnet' };
  const b = sweepBench();
  const { api, newWallet, newAddress, addRule, gasStation, withdrawals, runSweeps: sweepNow } = b;
  const exists = async (address: string) =>
    (
      (await (await fetch(`${node.url}/wallet/getaccount`, { method: 'POST', body: JSON.stringify({ address }) })).json()) as {
        address?: string;
      }
    ).address !== undefined;
  const round = async () => {
    node.mine(3); // past the solidified block (2 behind the head)
    await b.follower.tick();
  };

  beforeAll(async () => {
    t = await createTestDatabase();
    node = await startRecordedTronNode({ head: 1000, solidLag: 2 });
    const settings: ChainSettings = {
      ...chain,
      rpcUrl: node.url,
      startBlock: 1001,
      tokens: [{ contract: USDT, symbol: 'USDT', decimals: 6 }],
    };
    node.setBalance(PAYER.address, 10_000n * TRX);
    node.setTokenBalance(USDT, PAYER.address, 1_000_000n * USDT_UNIT);
    await b.start(t.db, settings);
  });
  afterAll(async () => {
    await b.stop();
    await node?.close();
    await t?.drop();
  });

  it('ten USDT addresses with no TRX: each gets exactly one top-up (the quoted fee + 25%), then its USDT reaches the treasury; every step is in the feed', async () => {
    const walletId = await newWallet('customers');
    const treasury = await newAddress(walletId);
    const sources: { address: string; amount: bigint }[] = [];
    for (let i = 1; i <= 10; i++) sources.push({ address: await newAddress(walletId), amount: BigInt(i) * 10n * USDT_UNIT });
    for (const src of sources) node.payTrc20(USDT, src.address, src.amount);
    const station = (await gasStation(walletId)).body.address as string;
    node.payTrx(station, 1_000n * TRX);
    await round();
    for (const src of sources) expect(await exists(src.address)).toBe(false);

    const created = await addRule(walletId, { asset: 'USDT', destination: treasury });
    expect(created.status).toBe(201);
    const ruleId = created.body.id as number;

    // Before any top-up: the sweep's bound is quoted for an address that is no account yet.
    const view = (await gasStation(walletId)).body;
    expectSchema('GasStation', view);
    expect(view).toMatchObject({ available: '1000', marginPercent: 25, spentLast24h: '0' });
    expect(view.estimate).toMatchObject({ ruleId, sweepFee: '16.93705', topUp: '21.171313', topUpFee: '1.1' });
    expect(BigInt(view.estimate.runway)).toBe((1_000n * TRX) / (TOP_UP + ACTIVATION));

    const stationBefore = node.balance(station);
    const now = Date.now();
    expect(await sweepNow(now)).toMatchObject({ rules: 1, sent: 0, toppedUp: 10, failed: 0 });
    // Before the top-ups confirm, the same window sends nothing more.
    expect(await sweepNow(now)).toMatchObject({ sent: 0, toppedUp: 0 });
    await round();
    for (const src of sources) {
      expect(await exists(src.address)).toBe(true);
      expect(node.balance(src.address)).toBe(TOP_UP);
    }

    expect(await sweepNow(now)).toMatchObject({ sent: 10, toppedUp: 0, failed: 0 });
    await round();

    const all = await withdrawals(walletId);
    const topUps = all.filter((w) => w.kind === 'gas_topup');
    const sweeps = all.filter((w) => w.kind === 'sweep');
    expect([topUps.length, sweeps.length, all.length]).toEqual([10, 10, 20]);
    let stationSpent = 0n;
    for (const src of sources) {
      const mine = topUps.filter((w) => w.toAddress === src.address);
      expect(mine).toHaveLength(1);
      const topUp = mine[0] as SweepWithdrawal;
      expect(topUp).toMatchObject({ fromAddress: station, sweepRuleId: ruleId, status: 'confirmed', amount: '21.171313' });
      expect(sun(topUp.fee?.amount ?? '0')).toBe(ACTIVATION);
      stationSpent += sun(topUp.amount) + sun(topUp.fee?.amount ?? '0');
      const sweep = sweeps.find((w) => w.fromAddress === src.address) as SweepWithdrawal;
      expect(sweep).toMatchObject({ toAddress: treasury, sweepRuleId: ruleId, status: 'confirmed' });
      expect(baseUnits(sweep.amount, 6)).toBe(src.amount);
      expect(sun(sweep.fee?.amount ?? '0')).toBe(BURNED);
      // What the energy did not burn stays on the address for its next sweep; no USDT does.
      expect(node.balance(src.address)).toBe(TOP_UP - BURNED);
      expect(node.tokenBalance(USDT, src.address)).toBe(0n);
    }
    expect(node.tokenBalance(USDT, treasury)).toBe(sources.reduce((sum, x) => sum + x.amount, 0n));
    expect(stationSpent).toBe(10n * (TOP_UP + ACTIVATION));
    expect(stationBefore - node.balance(station)).toBe(stationSpent);

    const after = (await gasStation(walletId)).body;
    expectSchema('GasStation', after);
    expect(sun(after.spentLast24h)).toBe(stationSpent);
    expect(sun(after.available)).toBe(1_000n * TRX - stationSpent);

    const feed = await b.feed({ atLeast: 40, of: (e) => e.type.startsWith('withdrawal.') });
    const mine = feed.filter((e) => e.type.startsWith('withdrawal.') && e.data.sweepRuleId === ruleId);
    const steps = (kind: string, type: string) => mine.filter((e) => e.data.kind === kind && e.type === type).length;
    expect([
      steps('gas_topup', 'withdrawal.broadcast'),
      steps('gas_topup', 'withdrawal.confirmed'),
      steps('sweep', 'withdrawal.broadcast'),
      steps('sweep', 'withdrawal.confirmed'),
    ]).toEqual([10, 10, 10, 10]);

    // Nothing left: the next window tops up and sends nothing.
    const later = await sweepNow(now + 2 * 3_600_000);
    expect([later.toppedUp, later.sent, later.failed]).toEqual([0, 0, 0]);
    expect((await api('GET', `/wallets/${walletId}/sweep-rules/${ruleId}`)).body.lastError).toBeNull();
  });

  it('never tops up for a TRC-20 off the allow-list: a look-alike under the USDT symbol is refused before any TRX moves', async () => {
    const walletId = await newWallet('lured');
    const treasury = await newAddress(walletId);
    const src = await newAddress(walletId);
    const LOOKALIKE = 'TTmaAAbFPtACn1amP3FBkmmUygFh8udAvA';
    node.setTokenBalance(LOOKALIKE, PAYER.address, 1_000n * USDT_UNIT);
    node.payTrc20(LOOKALIKE, src, 1_000n * USDT_UNIT);
    const station = (await gasStation(walletId)).body.address as string;
    node.payTrx(station, 100n * TRX);
    await round();
    expect((await addRule(walletId, { asset: LOOKALIKE, destination: treasury })).body).toMatchObject({
      statusCode: 422,
      code: 'unknown_asset',
    });
    const listed = await addRule(walletId, { asset: 'USDT', destination: treasury });
    expect(listed.status).toBe(201);
    const wallet = await t.db('wallets').where({ id: walletId }).first();
    const rule = await t.db('sweep_rules').where({ id: listed.body.id }).first();
    const fake = { key: `tron:devnet:lookalike`, symbol: 'USDT', decimals: 6, contractAddress: LOOKALIKE };
    await expect(gasForSweep(b.common, wallet, rule, fake, src, 'd1', 1_000n * USDT_UNIT)).rejects.toMatchObject({ code: 'unknown_asset' });
    // The listed rule finds no USDT there: nothing is topped up or sent from this wallet.
    await sweepNow();
    expect(await t.db('withdrawals').where({ wallet_id: walletId })).toHaveLength(0);
    expect(await exists(src)).toBe(false);
  });
});
