import type { ChainSettings } from '@walletd/core';
import { addPolicy, prepareWithdrawal, setPolicyEnabled } from '@walletd/server';
import {
  type Anvil,
  type TestDatabase,
  baseUnits,
  createTestDatabase,
  expectSchema,
  nativeAsset,
  startAnvil,
  sweepBench,
} from '@walletd/test-harness';

const ETH = 10n ** 18n;
const units = (decimal: string) => baseUnits(decimal, 18);

/**
 * Sweep rules (issue 33) on anvil, through the API and the runner the indexer leads: each deposit
 * address above the threshold is swept into the treasury address as an ordinary withdrawal of
 * kind sweep, exactly its balance less the fee cap; a second run sends nothing; an address below
 * the threshold stays; a policy asking for approval turns the sweep into a pending request.
 */
describe('sweep rules on anvil', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  let walletId: number;
  let treasury: string;
  const funded: { address: string; amount: bigint }[] = [];
  let below: string;
  const b = sweepBench();
  const { api, newWallet, newAddress, addRule, withdrawalEvents, runSweeps } = b;
  const onNode = async (address: string) => BigInt(await anvil.rpc<string>('eth_getBalance', [address, 'latest']));
  const round = async (blocks = 1) => {
    await anvil.mine(blocks);
    await b.follower.tick();
  };

  beforeAll(async () => {
    t = await createTestDatabase();
    anvil = await startAnvil();
    const settings: ChainSettings = { chain: 'ethereum', network: 'devnet', rpcUrl: anvil.url, confirmations: 2, startBlock: 0 };
    await b.start(t.db, settings);
    walletId = await newWallet('hot');
    treasury = await newAddress(walletId);
    for (const amount of [units('1'), units('0.8'), units('0.6')]) funded.push({ address: await newAddress(walletId), amount });
    below = await newAddress(walletId);
    for (const f of funded) await anvil.send(f.address, f.amount);
    await anvil.send(below, units('0.3'));
    await round(2);
  });
  afterAll(async () => {
    await b.stop();
    await anvil.stop();
    await t.drop();
  });

  it('sweeps each address above 0.5 ETH into the treasury, exactly less the fee, as withdrawals of kind sweep; a second run sends nothing', async () => {
    const created = await addRule(walletId, {
      asset: 'ETH',
      destination: treasury,
      threshold: '0.5',
      minLeft: '0',
      trigger: 'schedule',
      intervalSeconds: 3600,
    });
    expect(created.status).toBe(201);
    expectSchema('SweepRule', created.body);
    const ruleId = created.body.id as number;
    expect(created.body).toMatchObject({ threshold: '0.5', minLeft: '0', trigger: 'schedule', enabled: true, lastRunAt: null });

    const treasuryBefore = await onNode(treasury);
    const now = Date.now();
    const first = await runSweeps(now);
    expect(first).toMatchObject({ rules: 1, sent: 3, awaitingApproval: 0, failed: 0, truncated: false });
    await round(3);

    const list = await api('GET', `/wallets/${walletId}/withdrawals`);
    expectSchema('WithdrawalList', list.body);
    const sweeps = list.body.withdrawals as { id: number; kind: string; sweepRuleId: number; fromAddress: string; amount: string }[];
    expect(sweeps).toHaveLength(3);
    let received = 0n;
    for (const f of funded) {
      const w = sweeps.find((x) => x.fromAddress === f.address);
      expect(w).toMatchObject({ kind: 'sweep', sweepRuleId: ruleId });
      const detail = await api('GET', `/withdrawals/${w?.id}`);
      expectSchema('Withdrawal', detail.body);
      expect(detail.body.status).toBe('confirmed');
      // The amount is the balance less the fee cap reserved at prepare; what the fee came to below it stays.
      const cap = BigInt(detail.body.history.find((h: { status: string }) => h.status === 'prepared').details.feeEstimate);
      const amount = units(detail.body.amount);
      expect(amount).toBe(f.amount - cap);
      const paid = units(detail.body.fee.amount);
      expect(await onNode(f.address)).toBe(f.amount - amount - paid);
      received += amount;
    }
    expect((await onNode(treasury)) - treasuryBefore).toBe(received);
    // Below the threshold: untouched.
    expect(await onNode(below)).toBe(units('0.3'));

    // The events name the kind and the rule, and match the published schema.
    const events = await withdrawalEvents({ atLeast: 6 });
    expect(events.map((e) => e.type).sort()).toEqual([...Array(3).fill('withdrawal.broadcast'), ...Array(3).fill('withdrawal.confirmed')]);
    for (const e of events) expect(e.data).toMatchObject({ kind: 'sweep', sweepRuleId: ruleId });

    // Again in the same window, and in the next one: nothing more is sent.
    const again = await runSweeps(now);
    const next = await runSweeps(now + 3_600_000);
    expect(again.sent + next.sent).toBe(0);
    expect(await t.db('withdrawals').where({ wallet_id: walletId }).pluck('id')).toHaveLength(3);
    const rule = await api('GET', `/wallets/${walletId}/sweep-rules/${ruleId}`);
    expect(rule.body).toMatchObject({ lastError: null });
    expect(rule.body.lastRunAt).not.toBeNull();
  });

  it('refuses a rule the API cannot keep: bad fields (400), a denied destination (403), a fee rate on an account chain (400); PATCH and DELETE', async () => {
    const path = `/wallets/${walletId}/sweep-rules`;
    const base = { asset: 'ETH', destination: treasury, threshold: '0.5', trigger: 'schedule', intervalSeconds: 3600 };
    const refused = async (body: unknown, status: number, code: string) => {
      const r = await api('POST', path, body);
      expect(r.status).toBe(status);
      expectSchema('ErrorBody', r.body);
      expect(r.body.code).toBe(code);
    };
    await refused({ ...base, destination: '0x1234' }, 400, 'invalid_address');
    await refused({ ...base, threshold: '0' }, 400, 'invalid_amount');
    await refused({ ...base, threshold: '0.0000000000000000001' }, 400, 'invalid_amount');
    // Beyond what numeric(78,0) keeps (issue 42 §5: these answered 500): 2^256 ETH, 2^256 wei, 5,000 digits.
    await refused({ ...base, threshold: String(2n ** 256n) }, 400, 'invalid_amount');
    await refused({ ...base, threshold: `${2n ** 256n / ETH}.${String(2n ** 256n % ETH).padStart(18, '0')}` }, 400, 'invalid_amount');
    await refused({ ...base, minLeft: '9'.repeat(5000) }, 400, 'invalid_amount');
    await refused({ ...base, gasDailyCap: String(2n ** 256n) }, 400, 'invalid_amount');
    await refused({ ...base, intervalSeconds: undefined }, 400, 'validation_failed');
    await refused({ ...base, trigger: 'deposit' }, 400, 'validation_failed');
    await refused({ ...base, asset: 'DOGE' }, 422, 'unknown_asset');
    await refused({ ...base, extra: 1 }, 400, 'validation_failed');
    const deny = await addPolicy(t.db, {
      companyId: b.seeded.companyId,
      name: 'no dead',
      kind: 'deny_destinations',
      walletIds: null,
      assetKey: null,
      addresses: ['0x000000000000000000000000000000000000dEaD'],
    });
    await refused({ ...base, destination: '0x000000000000000000000000000000000000dEaD' }, 403, 'policy_denied');
    await setPolicyEnabled(t.db, deny.id, false);
    // A fee rate is a consolidation's (UTXO rules, sweepConsolidation.test.ts): an account chain sets its own fees.
    await refused({ ...base, feeRate: 5 }, 400, 'validation_failed');

    const made = await api('POST', path, { ...base, enabled: false });
    expect(made.status).toBe(201);
    const patched = await api('PATCH', `${path}/${made.body.id}`, { trigger: 'deposit', minLeft: '0.01' });
    expect(patched.status).toBe(200);
    expectSchema('SweepRule', patched.body);
    expect(patched.body).toMatchObject({ trigger: 'deposit', intervalSeconds: null, minLeft: '0.01', enabled: false });
    expect((await api('PATCH', `${path}/${made.body.id}`, {})).status).toBe(400);
    const huge = await api('PATCH', `${path}/${made.body.id}`, { threshold: String(2n ** 256n) });
    expect([huge.status, huge.body.code]).toEqual([400, 'invalid_amount']);
    expect((await api('DELETE', `${path}/${made.body.id}`)).status).toBe(204);
    expect((await api('GET', `${path}/${made.body.id}`)).status).toBe(404);
    const listed = await api('GET', path);
    expectSchema('SweepRuleList', listed.body);
    expect(listed.body.rules.map((r: { id: number }) => r.id)).not.toContain(made.body.id);
  });

  it('a crash after prepare: the next run signs and sends that same withdrawal, never a second one', async () => {
    const w = await newWallet('crash');
    const dest = await newAddress(w);
    const src = await newAddress(w);
    await anvil.send(src, units('0.9'));
    await round(2);
    const rule = (await addRule(w, { asset: 'ETH', destination: dest, threshold: '0.5' })).body as { id: number };
    // What the runner had done when the process died: the sweep prepared under its key, nothing sent.
    const wallet = await t.db('wallets').where({ id: w }).first();
    const deposit = await t.db('transfers').where({ wallet_id: w, direction: 'incoming', status: 'confirmed' }).max('id as id').first();
    const key = `sweep:${rule.id}:d${deposit?.id}:${src}`;
    const intent = {
      asset: nativeAsset('ethereum', 'devnet'),
      outputs: [{ to: dest, toKey: dest.toLowerCase(), amount: units('0.5') }],
      from: { address: src, matchKey: src.toLowerCase() },
    };
    const { row } = await prepareWithdrawal(b.common, wallet, {
      intent,
      idempotencyKey: key,
      keyId: null,
      request: null,
      sweepRuleId: rule.id,
    });
    expect(row).toMatchObject({ status: 'prepared', kind: 'sweep', sweep_rule_id: rule.id });

    const run = await runSweeps();
    expect(run.failed).toBe(0);
    await round(3);
    const rows = await t.db('withdrawals').where({ wallet_id: w });
    expect(rows.map((r) => [r.id, r.status])).toEqual([[row.id, 'confirmed']]);
    expect(await onNode(dest)).toBe(units('0.5'));
  });

  it('a sweep above an approval limit becomes a pending withdrawal request, once', async () => {
    const cold = await newWallet('cold-bound');
    const dest = await newAddress(cold);
    const big = await newAddress(cold);
    await anvil.send(big, units('1.5'));
    await round(2);
    await addPolicy(t.db, {
      companyId: b.seeded.companyId,
      name: 'big sweeps',
      kind: 'approval_above',
      walletIds: [cold],
      assetKey: nativeAsset('ethereum', 'devnet').key,
      threshold: ETH,
      approvals: 1,
    });
    const rule = await addRule(cold, { asset: 'ETH', destination: dest, threshold: '0.5' });
    expect(rule.status).toBe(201);
    const run = await runSweeps();
    expect(run).toMatchObject({ sent: 0, awaitingApproval: 1, failed: 0 });
    const again = await runSweeps();
    expect(again.awaitingApproval).toBe(1);
    const requests = await t.db('withdrawal_requests').where({ wallet_id: cold });
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ status: 'pending', kind: 'sweep', sweep_rule_id: rule.body.id });
    expect(await t.db('withdrawals').where({ wallet_id: cold })).toHaveLength(0);
    expect(await onNode(big)).toBe(units('1.5'));
  });
});
