import { ensureGasStation, prepareWithdrawal } from '@walletd/server';
import {
  type Anvil,
  type TestDatabase,
  type TestToken,
  createTestDatabase,
  nativeAsset,
  startOnAnvilWithUsdc,
  sweepBench,
} from '@walletd/test-harness';

const ETH = 10n ** 18n;
const USDC = 10n ** 6n;

/**
 * The gas station across a crash (issue 33): a top-up prepared under its key when the process died
 * is signed and sent by the next run, never a second one; and a top-up whose sweep is no longer
 * due (the threshold rose meanwhile) leaves its gas on the address, where the next sweep uses it
 * without another top-up.
 */
describe('gas station across a restart', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  let usdc: TestToken;
  const b = sweepBench();
  const { api, newWallet, newAddress, addRule, runSweeps } = b;
  const ethOf = async (address: string) => BigInt(await anvil.rpc<string>('eth_getBalance', [address, 'latest']));
  const round = async (blocks = 1) => {
    await anvil.mine(blocks);
    await b.follower.tick();
  };

  beforeAll(async () => {
    t = await createTestDatabase();
    ({ anvil, usdc } = await startOnAnvilWithUsdc(b, t.db));
  });
  afterAll(async () => {
    await b.stop();
    await anvil.stop();
    await t.drop();
  });

  it('a top-up prepared before a crash is sent by the next run, once; a top-up whose sweep is no longer due leaves its gas for the next one', async () => {
    const walletId = await newWallet('crash');
    const treasury = await newAddress(walletId);
    const src = await newAddress(walletId);
    await usdc.mint(src, 40n * USDC);
    await round(2);
    const rule = (await addRule(walletId, { asset: 'USDC', destination: treasury, threshold: '10' })).body as { id: number };

    // What the runner had done when the process died: the top-up prepared under its key, nothing sent.
    const wallet = await t.db('wallets').where({ id: walletId }).first();
    const station = await ensureGasStation(b.common, wallet);
    await anvil.send(station.address, ETH / 10n);
    await round(2);
    const deposit = await t
      .db('transfers as t')
      .join('addresses as a', 'a.id', 't.address_id')
      .where({ 'a.address': src, 't.direction': 'incoming', 't.status': 'confirmed' })
      .max('t.id as id')
      .first();
    const gas = ETH / 1000n; // ample for one token transfer on anvil
    const { row } = await prepareWithdrawal(b.common, wallet, {
      intent: {
        asset: nativeAsset('ethereum', 'devnet'),
        outputs: [{ to: src, toKey: src.toLowerCase(), amount: gas }],
        from: { address: station.address, matchKey: station.match_key },
      },
      idempotencyKey: `gas_topup:${rule.id}:d${deposit?.id}:${src}`,
      keyId: null,
      request: null,
      sweepRuleId: rule.id,
      kind: 'gas_topup',
    });
    expect(row).toMatchObject({ status: 'prepared', kind: 'gas_topup' });

    const resumed = await runSweeps();
    expect(resumed).toMatchObject({ toppedUp: 0, sent: 0, failed: 0 });
    await round(3);
    const topUps = await t.db('withdrawals').where({ wallet_id: walletId, kind: 'gas_topup' });
    expect(topUps.map((w) => [w.id, w.status])).toEqual([[row.id, 'confirmed']]);
    expect(await ethOf(src)).toBe(gas);

    // The sweep is no longer due (the threshold rose above the balance): nothing is sent, the gas stays.
    expect((await api('PATCH', `/wallets/${walletId}/sweep-rules/${rule.id}`, { threshold: '50' })).status).toBe(200);
    expect(await runSweeps()).toMatchObject({ toppedUp: 0, sent: 0, failed: 0 });
    expect(await ethOf(src)).toBe(gas);

    // Due again: the gas already there pays the sweep, no second top-up.
    expect((await api('PATCH', `/wallets/${walletId}/sweep-rules/${rule.id}`, { threshold: '10' })).status).toBe(200);
    expect(await runSweeps()).toMatchObject({ toppedUp: 0, sent: 1, failed: 0 });
    await round(3);
    expect(await t.db('withdrawals').where({ wallet_id: walletId, kind: 'gas_topup' })).toHaveLength(1);
    const [sweep] = await t.db('withdrawals').where({ wallet_id: walletId, kind: 'sweep' });
    expect(sweep).toMatchObject({ status: 'confirmed', amount: String(40n * USDC), to_address: treasury });
    expect(await ethOf(src)).toBe(gas - BigInt(sweep.fee));
  });
});
