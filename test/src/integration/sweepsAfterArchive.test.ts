import { ensureMonthPartitions } from '@walletd/core';
import { archiveMonth, compareLedger } from '@walletd/server';
import {
  type Anvil,
  type TestDatabase,
  type TestToken,
  baseUnits,
  createTestDatabase,
  startOnAnvilWithUsdc,
  sweepBench,
} from '@walletd/test-harness';

const units = (decimal: string) => baseUnits(decimal, 18);

/**
 * Issue 32: an address whose deposits all lie in a month taken out by `walletd archive-month`
 * still holds them (the ledger says so), so a sweep rule made afterwards still sweeps it, on a
 * schedule or on its (archived) latest deposit; the runner used to find no deposit there and
 * skipped the address. The gas station's estimate finds the token holder the same way.
 */
describe('sweeps after a month is archived', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  let usdc: TestToken;
  let gasWallet: { id: number; treasury: string; funded: string };
  const b = sweepBench();
  const { newWallet, newAddress, addRule, runSweeps, withdrawals, gasStation } = b;

  beforeAll(async () => {
    t = await createTestDatabase();
    for (const table of ['transfers', 'events'] as const) await ensureMonthPartitions(t.db, table, { from: new Date('2025-01-01') });
    ({ anvil, usdc } = await startOnAnvilWithUsdc(b, t.db));
  });
  afterAll(async () => {
    await b.stop();
    await anvil.stop();
    await t.drop();
  });

  it('sweeps an address funded only in an archived month, by schedule and by deposit trigger', async () => {
    const wallets: { id: number; treasury: string; funded: string }[] = [];
    for (const name of ['scheduled', 'on-deposit']) {
      const id = await newWallet(name);
      wallets.push({ id, treasury: await newAddress(id), funded: await newAddress(id) });
    }
    for (const w of wallets) await anvil.send(w.funded, units('1'));
    const id = await newWallet('gas');
    gasWallet = { id, treasury: await newAddress(id), funded: await newAddress(id) };
    await usdc.mint(gasWallet.funded, 20_000_000n);
    await anvil.mine(2);
    await b.follower.tick();
    await t.db.raw(`update transfers set created_at = '2025-01-15T00:00:00Z'`);
    const archived = await archiveMonth(t.db, { month: '2025-01', tables: ['transfers'] });
    expect(archived.tables).toEqual([expect.objectContaining({ outcome: 'archived', rows: 3 })]);
    expect(await compareLedger(t.db, b.chain)).toEqual([]);

    const [scheduled, onDeposit] = wallets as [(typeof wallets)[0], (typeof wallets)[0]];
    const rules = [
      await addRule(scheduled.id, {
        asset: 'ETH',
        destination: scheduled.treasury,
        threshold: '0.5',
        trigger: 'schedule',
        intervalSeconds: 3600,
      }),
      await addRule(onDeposit.id, { asset: 'ETH', destination: onDeposit.treasury, threshold: '0.5' }),
    ];
    expect(rules.map((r) => r.status)).toEqual([201, 201]);
    expect(await runSweeps(Date.now())).toMatchObject({ rules: 2, sent: 2, failed: 0 });
    for (const w of wallets) expect((await withdrawals(w.id)).map((x) => [x.kind, x.fromAddress])).toEqual([['sweep', w.funded]]);
  });

  it("the gas station's estimate finds the token holder whose deposits are archived", async () => {
    const rule = await addRule(gasWallet.id, {
      asset: 'USDC',
      destination: gasWallet.treasury,
      threshold: '5',
      trigger: 'schedule',
      intervalSeconds: 3600,
    });
    expect(rule.status).toBe(201);
    const view = await gasStation(gasWallet.id);
    expect(view.status).toBe(200);
    expect(view.body.estimate).toMatchObject({ ruleId: rule.body.id, token: { symbol: 'USDC' } });
  });
});
