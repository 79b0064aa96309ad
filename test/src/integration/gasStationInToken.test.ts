import { MasterKey, tokenSigner } from '@walletd/core';
import { evmAddressOf } from '@walletd/plugin-evm';
import {
  type Anvil,
  baseUnits,
  createTestDatabase,
  describeWithSoftHsm,
  expectSchema,
  newSoftHsmToken,
  SOFTHSM_MODULE,
  softHsmKeySettings,
  type SoftHsmToken,
  startOnAnvilWithUsdc,
  sweepBench,
  type TestDatabase,
  type TestToken,
} from '@walletd/test-harness';
import { randomBytes } from 'node:crypto';

const ETH = 10n ** 18n;
const USDC = 10n ** 6n;

/**
 * Issue 45 §3: with `masterKey.gasStationsInToken`, a wallet's gas station is a key pair generated
 * inside the PKCS#11 token (SoftHSM2); its top-ups are signed there, land on anvil, are counted and
 * audited, and the sweep they pay for goes through.
 */
describeWithSoftHsm('a gas station whose key is held in the token', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  let usdc: TestToken;
  let token: SoftHsmToken;
  const b = sweepBench(new MasterKey(randomBytes(32)), {
    masterKey: {
      gasStationsInToken: true,
      pkcs11: softHsmKeySettings(`gas-${process.pid}`),
    },
  });
  const round = async (blocks = 1) => {
    await anvil.mine(blocks);
    await b.follower.tick();
  };

  beforeAll(async () => {
    token = newSoftHsmToken(`gas-${process.pid}`);
    t = await createTestDatabase();
    ({ anvil, usdc } = await startOnAnvilWithUsdc(b, t.db));
  });
  afterAll(async () => {
    await b.stop();
    await anvil.stop();
    await t.drop();
  });

  it('the station’s address is the token key’s; its top-up is signed in the token, lands, and the sweep follows', async () => {
    const walletId = await b.newWallet('customers');
    const treasury = await b.newAddress(walletId);
    const source = await b.newAddress(walletId);
    await usdc.mint(source, 50n * USDC);
    await round(2);

    const station = (await b.gasStation(walletId)).body;
    expectSchema('GasStation', station);
    expect(station).toMatchObject({ keyHeldIn: 'token', path: `pkcs11:walletd-gas-station-${walletId}` });
    const held = tokenSigner(
      { module: SOFTHSM_MODULE, tokenLabel: token.label, pin: token.pin, keyLabel: `walletd-gas-station-${walletId}` },
      'secp256k1',
    );
    expect(station.address).toBe(evmAddressOf(held));
    held.close();
    await anvil.send(station.address, ETH);
    await round(2);

    await b.addRule(walletId, { asset: 'USDC', destination: treasury, threshold: '5', trigger: 'schedule', intervalSeconds: 3600 });
    const now = Date.now();
    expect(await b.runSweeps(now)).toMatchObject({ toppedUp: 1, failed: 0 });
    await round(3);
    expect(await b.runSweeps(now)).toMatchObject({ sent: 1, failed: 0 });
    await round(3);

    const all = await b.withdrawals(walletId);
    const topUp = all.find((w) => w.kind === 'gas_topup');
    expect(topUp).toMatchObject({ fromAddress: station.address, toAddress: source, status: 'confirmed' });
    expect(all.find((w) => w.kind === 'sweep')).toMatchObject({ fromAddress: source, toAddress: treasury, status: 'confirmed' });
    const onChain = await anvil.rpc<{ from: string }>('eth_getTransactionByHash', [topUp?.txHash]);
    expect(onChain.from.toLowerCase()).toBe(station.address.toLowerCase());
    const signed = await t
      .db('audit_log')
      .where({ action: 'withdrawal.signed', target_id: String(topUp?.id) })
      .first();
    expect(signed.details).toMatchObject({ keyHeldIn: 'token', txHash: topUp?.txHash });
    const metric = await b.common.metrics?.tokenSignatures.get();
    expect(metric?.values.find((v) => v.labels.curve === 'secp256k1')?.value).toBe(1);
    expect(baseUnits((await b.gasStation(walletId)).body.available, 18)).toBeLessThan(ETH);
  });

  it('a treasury address held in the token: its key made there, a withdrawal from it signed there and mined from it', async () => {
    const walletId = await b.newWallet('treasury');
    const made = await b.api('POST', `/wallets/${walletId}/addresses`, { label: 'hot', keyHeldIn: 'token' });
    expect(made.status).toBe(201);
    expectSchema('Address', made.body);
    const label = `walletd-address-${walletId}-${made.body.index}`;
    expect(made.body).toMatchObject({ keyHeldIn: 'token', path: `pkcs11:${label}`, label: 'hot' });
    const held = tokenSigner({ module: SOFTHSM_MODULE, tokenLabel: token.label, pin: token.pin, keyLabel: label });
    expect(made.body.address).toBe(evmAddressOf(held));
    held.close();
    const listed = (await b.api('GET', `/wallets/${walletId}/addresses`)).body.addresses;
    expect(listed.find((a: { id: number }) => a.id === made.body.id)).toMatchObject({ keyHeldIn: 'token' });
    // A derived address of the same wallet does not say it.
    const derived = await b.api('POST', `/wallets/${walletId}/addresses`);
    expect(derived.body.keyHeldIn).toBeUndefined();

    await anvil.send(made.body.address, 2n * ETH);
    await round(2);
    // The API's own counter (its process's /metrics), as an operator reads it.
    const tokenSignatures = async () =>
      Number(
        /^walletd_token_signatures_total\{curve="secp256k1"\} (\d+)$/m.exec(await (await fetch(`${b.app.url}/metrics`)).text())?.[1] ?? 0,
      );
    const before = await tokenSignatures();
    const prepared = await b.api('POST', `/wallets/${walletId}/withdrawals`, {
      asset: 'ETH',
      toAddress: derived.body.address,
      amount: '0.25',
      fromAddress: made.body.address,
      idempotencyKey: 'hot-out',
    });
    expect(prepared.status).toBe(201);
    const sent = await b.api('POST', `/withdrawals/${prepared.body.id}/broadcast`);
    expect(sent.status).toBe(200);
    await round(3);
    const done = (await b.api('GET', `/withdrawals/${prepared.body.id}`)).body;
    expect(done).toMatchObject({ status: 'confirmed', fromAddress: made.body.address, amount: '0.25' });
    const onChain = await anvil.rpc<{ from: string }>('eth_getTransactionByHash', [done.txHash]);
    expect(onChain.from.toLowerCase()).toBe(made.body.address.toLowerCase());
    const signed = await t
      .db('audit_log')
      .where({ action: 'withdrawal.signed', target_id: String(prepared.body.id) })
      .first();
    expect(signed.details).toMatchObject({ keyHeldIn: 'token', txHash: done.txHash });
    expect(await tokenSignatures()).toBe(before + 1);
  });

  it('refuses an unknown keyHeldIn with 400, before anything is written', async () => {
    const walletId = await b.newWallet('other');
    const bad = await b.api('POST', `/wallets/${walletId}/addresses`, { keyHeldIn: 'hsm' });
    expect(bad.status).toBe(400);
    expect(await t.db('addresses').where({ wallet_id: walletId }).count()).toEqual([{ count: 0 }]);
  });
});
