import { TOKEN_PROGRAM_ADDRESS, findAssociatedTokenPda } from '@solana-program/token';
import type { ChainSettings } from '@walletd/core';
import {
  type SolanaSvmNode,
  type SweepWithdrawal,
  type TestDatabase,
  baseUnits as units,
  createTestDatabase,
  expectSchema,
  startSolanaSvm,
  sweepBench,
} from '@walletd/test-harness';

const ata = async (owner: string, mint: string) =>
  (await findAssociatedTokenPda({ owner: owner as never, mint: mint as never, tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0] as string;
const SOL = 1_000_000_000n;

/**
 * Sweeps on Solana (issue 33) executed by litesvm: USDC on deposit addresses that hold no SOL is
 * swept with the wallet's gas station as the fee payer (no top-up: the station signs the sweep and
 * pays its fee, and the treasury's token account rent once), and a SOL deposit is swept whole, the
 * address left at exactly 0 lamports.
 */
describe('Solana sweeps with the gas station as fee payer (litesvm)', () => {
  let t: TestDatabase;
  let node: SolanaSvmNode;
  let walletId: number;
  let mint: string;
  let treasury: string;
  let station: string;
  let solDeposit: string;
  const tokenDeposits: { address: string; amount: bigint }[] = [];
  const chain = { chain: 'solana', network: 'localnet' };
  const b = sweepBench();
  const { api, newWallet, addRule, gasStation, withdrawals, runSweeps } = b;
  const lamports = (a: string): bigint => node.svm.getBalance(a as never) ?? 0n;
  const tokens = async (owner: string): Promise<bigint> => {
    const acc = node.svm.getAccount((await ata(owner, mint)) as never);
    if (!acc.exists) return -1n;
    return new DataView(acc.data.buffer, acc.data.byteOffset + 64, 8).getBigUint64(0, true);
  };
  const round = async () => {
    node.produceBlocks(3);
    await b.follower.tick();
  };
  const newAddress = () => b.newAddress(walletId);

  beforeAll(async () => {
    t = await createTestDatabase();
    node = await startSolanaSvm({ priorityFee: 1_000n });
    mint = await node.createMint(6);
    const settings: ChainSettings = {
      ...chain,
      rpcUrl: node.url,
      startBlock: Number(node.slot) + 1,
      tokens: [{ contract: mint, symbol: 'USDC', decimals: 6 }],
    };
    await b.start(t.db, settings);
    walletId = await newWallet('sol');
    treasury = await newAddress();
    for (const amount of [5_000_000n, 7_250_000n]) tokenDeposits.push({ address: await newAddress(), amount });
    solDeposit = await newAddress();
    const view = await gasStation(walletId);
    expect(view.status).toBe(200);
    station = view.body.address;
    await b.follower.tick(); // registers each deposit address's token account for the listed mint
    await node.sendSol(station, SOL);
    for (const d of tokenDeposits) await node.mintTo(mint, d.address, d.amount, 6);
    await node.sendSol(solDeposit, 2n * SOL);
    await round();
  });
  afterAll(async () => {
    await b.stop();
    await node.close();
    await t.drop();
  });

  it('sweeps USDC from addresses with no SOL, the station paying each fee as fee payer (no top-up), and SOL whole', async () => {
    for (const d of tokenDeposits) expect(lamports(d.address)).toBe(0n);
    const usdcRule = await addRule(walletId, { asset: 'USDC', destination: treasury });
    expect(usdcRule.status).toBe(201);
    const solRule = await addRule(walletId, { asset: 'SOL', destination: treasury, threshold: '0.5' });
    expect(solRule.status).toBe(201);

    // The station's view: no top-up on Solana, the runway counts sweeps it pays for (the first one
    // also puts the treasury's token account rent in).
    const view = await gasStation(walletId);
    expectSchema('GasStation', view.body);
    expect(view.body).toMatchObject({ address: station, available: '1', marginPercent: 0, estimate: { topUp: '0', topUpFee: '0' } });
    const rent = node.svm.minimumBalanceForRentExemption(165n);
    const firstFee = units(view.body.estimate.sweepFee, 9);
    expect(firstFee).toBe(10_000n + rent + (45_000n * 1_000n + 999_999n) / 1_000_000n);
    expect(view.body.estimate.runway).toBe(Number(SOL / firstFee));

    const stationBefore = lamports(station);
    const run = await runSweeps();
    expect(run).toMatchObject({ sent: 3, toppedUp: 0, failed: 0, awaitingApproval: 0 });
    await round();

    const list = await withdrawals(walletId);
    expect(list.map((w) => w.kind)).toEqual(['sweep', 'sweep', 'sweep']); // no gas_topup
    let stationPaid = 0n;
    for (const d of tokenDeposits) {
      const w = list.find((x) => x.fromAddress === d.address) as SweepWithdrawal;
      const detail = (await api('GET', `/withdrawals/${w.id}`)).body;
      expectSchema('Withdrawal', detail);
      expect(detail).toMatchObject({
        status: 'confirmed',
        sweepRuleId: usdcRule.body.id,
        toAddress: treasury,
        amount: String(Number(d.amount) / 1e6),
      });
      // The deposit address pays the amount, the station the fee: both sign.
      expect(detail.sourceAddresses).toEqual([d.address, station]);
      stationPaid += units(detail.fee.amount, 9);
      expect(await tokens(d.address)).toBe(0n);
      expect(lamports(d.address)).toBe(0n);
    }
    expect(await tokens(treasury)).toBe(tokenDeposits.reduce((n, d) => n + d.amount, 0n));
    // Exactly the two sweeps' fees left the station, the treasury's token account rent included once.
    expect(stationBefore - lamports(station)).toBe(stationPaid);
    expect(stationPaid).toBe(firstFee + 10_000n + (12_000n * 1_000n + 999_999n) / 1_000_000n);

    const sol = list.find((x) => x.fromAddress === solDeposit) as SweepWithdrawal;
    const solDetail = (await api('GET', `/withdrawals/${sol.id}`)).body;
    expect(solDetail).toMatchObject({ status: 'confirmed', sweepRuleId: solRule.body.id, sourceAddresses: [solDeposit] });
    // Swept whole: the amount and the (exact) fee are the 2 SOL; the account is closed.
    expect(units(solDetail.amount, 9) + units(solDetail.fee.amount, 9)).toBe(2n * SOL);
    expect(lamports(solDeposit)).toBe(0n);

    // walletd's balances agree with the engine: the USDC moved within the wallet; SOL lost the fees.
    const balances = (await api('GET', `/wallets/${walletId}/balances`)).body.balances as {
      asset: { symbol: string };
      confirmed: string;
    }[];
    const of = (symbol: string) => balances.find((b) => b.asset.symbol === symbol)?.confirmed;
    expect(of('USDC')).toBe('12.25');
    const solLeft =
      lamports(treasury) + lamports(station) + lamports(solDeposit) + tokenDeposits.reduce((n, d) => n + lamports(d.address), 0n);
    expect(units(of('SOL') as string, 9)).toBe(solLeft);

    // Checked against the published schema: SPL deposit events carry owner and mint (the schema
    // did not list them until this suite read the feed through it).
    const events = await b.withdrawalEvents({ atLeast: 6 });
    expect(events.map((e) => e.type).sort()).toEqual([...Array(3).fill('withdrawal.broadcast'), ...Array(3).fill('withdrawal.confirmed')]);
    for (const e of events) expect(e.data.kind).toBe('sweep');

    // Nothing new: nothing more is sent.
    expect(await runSweeps()).toMatchObject({ sent: 0, failed: 0 });

    // The station's spending counts what it paid as fee payer, and the rule's gasDailyCap bounds it:
    // a new deposit whose sweep fee would pass the cap waits, named in lastError.
    const after = await gasStation(walletId);
    expect(units(after.body.spentLast24h, 9)).toBe(stationPaid);
    const capped = await api('PATCH', `/wallets/${walletId}/sweep-rules/${usdcRule.body.id}`, { gasDailyCap: '0.0000201' });
    expect(capped.status).toBe(200);
    await node.mintTo(mint, tokenDeposits[0]?.address as string, 3_000_000n, 6);
    await round();
    expect(await runSweeps()).toMatchObject({ sent: 0, failed: 1 });
    const rule = (await api('GET', `/wallets/${walletId}/sweep-rules/${usdcRule.body.id}`)).body;
    expect(rule.lastError).toMatch(/gasDailyCap is 0\.0000201 SOL, the gas station paid 0\.00\d+ SOL for it in the last 24 hours/);
    expect(await tokens(tokenDeposits[0]?.address as string)).toBe(3_000_000n);
  });
});
