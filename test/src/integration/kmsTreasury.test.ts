import { awsKmsSigner, BaseError, MasterKey } from '@walletd/core';
import {
  type Anvil,
  baseUnits,
  createTestDatabase,
  expectSchema,
  type KmsEmulator,
  startKmsEmulator,
  startOnAnvilWithUsdc,
  sweepBench,
  type TestDatabase,
  type TestToken,
} from '@walletd/test-harness';
import { computeAddress, hexlify } from 'ethers';
import { randomBytes } from 'node:crypto';

const ETH = 10n ** 18n;
const USDC = 10n ** 6n;
const REGION = 'eu-west-1';

/**
 * Issue 45 §4: a treasury address whose key is an AWS KMS key, end to end on anvil. No AWS endpoint
 * is reachable here, so KMS is `startKmsEmulator`: an EMULATOR of the KMS wire protocol (JSON 1.1,
 * SigV4 checked) that holds real keys and signs with them, not recorded answers. walletd talks to it
 * through the real @aws-sdk/client-kms (`signers.awsKms.endpoint`), its credentials from the SDK's
 * default chain (the AWS_* variables here). The replayed-answer test of the signer alone is
 * awsKmsSigner.test.ts.
 */
describe('a treasury address held in AWS KMS (wire-protocol emulator)', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  let kms: KmsEmulator;
  let usdc: TestToken;
  const signers = { awsKms: { region: REGION, endpoint: '' } };
  const b = sweepBench(new MasterKey(randomBytes(32)), { signers });
  const round = async (blocks = 1) => {
    await anvil.mine(blocks);
    await b.follower.tick();
  };
  const kmsSignatures = async () =>
    Number(
      /^walletd_kms_signatures_total\{backend="aws_kms",curve="secp256k1"\} (\d+)$/m.exec(
        await (await fetch(`${b.app.url}/metrics`)).text(),
      )?.[1] ?? 0,
    );
  const balance = async (address: string) => BigInt(await anvil.rpc<string>('eth_getBalance', [address, 'latest']));
  const ethBalance = async (walletId: number) =>
    (await b.api('GET', `/wallets/${walletId}/balances`)).body.balances.find(
      (x: { asset: { symbol: string } }) => x.asset.symbol === 'ETH',
    );
  const kmsAddress = async (walletId: number, keyId: string) => {
    const made = await b.api('POST', `/wallets/${walletId}/addresses`, { label: 'treasury', keyHeldIn: 'kms', kmsKeyId: keyId });
    expect(made.status).toBe(201);
    return made.body as { id: number; address: string; index: number };
  };

  beforeAll(async () => {
    kms = await startKmsEmulator(REGION);
    signers.awsKms.endpoint = kms.url;
    // The SDK's default chain reads these (jest gives this file its own copy of process.env).
    process.env.AWS_ACCESS_KEY_ID = kms.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = kms.secretAccessKey;
    t = await createTestDatabase();
    ({ anvil, usdc } = await startOnAnvilWithUsdc(b, t.db));
    // A database, anvil and a compiled token on a loaded machine: more than the default 60 s may pass.
  }, 180_000);
  afterAll(async () => {
    await b.stop();
    await anvil.stop();
    await kms.stop();
    await t.drop();
  });

  it('its address is the KMS key’s; a withdrawal from it is signed in KMS, mined, exact to the wei, counted and audited', async () => {
    const keyId = kms.createKey('ECC_SECG_P256K1');
    const walletId = await b.newWallet('treasury');
    const made = await b.api('POST', `/wallets/${walletId}/addresses`, { label: 'treasury', keyHeldIn: 'kms', kmsKeyId: keyId });
    expect(made.status).toBe(201);
    expectSchema('Address', made.body);
    expect(made.body).toMatchObject({ keyHeldIn: 'kms', path: `awskms:${keyId}`, label: 'treasury' });
    // The address of the public key the emulator holds (the SPKI's last 65 bytes: the uncompressed point).
    expect(made.body.address).toBe(computeAddress(hexlify(kms.publicKey(keyId).subarray(-65))));
    // Only the key id is stored.
    const row = await t.db('addresses').where({ id: made.body.id }).first('kms_key_id', 'key_label', 'derivation_path');
    expect(row).toEqual({ kms_key_id: keyId, key_label: null, derivation_path: `awskms:${keyId}` });
    const listed = (await b.api('GET', `/wallets/${walletId}/addresses`)).body.addresses;
    expect(listed.find((a: { id: number }) => a.id === made.body.id)).toMatchObject({ keyHeldIn: 'kms' });
    const derived = await b.api('POST', `/wallets/${walletId}/addresses`);
    expect(derived.body.keyHeldIn).toBeUndefined();

    await anvil.send(made.body.address, 2n * ETH);
    await round(2);
    const before = await kmsSignatures();
    const signsBefore = kms.calls.filter((c) => c.operation === 'Sign' && c.keyId === keyId).length;
    const prepared = await b.api('POST', `/wallets/${walletId}/withdrawals`, {
      asset: 'ETH',
      toAddress: derived.body.address,
      amount: '0.25',
      fromAddress: made.body.address,
      idempotencyKey: 'kms-out',
    });
    expect(prepared.status).toBe(201);
    const sent = await b.api('POST', `/withdrawals/${prepared.body.id}/broadcast`);
    expect(sent.status).toBe(200);
    await round(3);
    const done = (await b.api('GET', `/withdrawals/${prepared.body.id}`)).body;
    expect(done).toMatchObject({ status: 'confirmed', fromAddress: made.body.address, amount: '0.25' });

    const tx = await anvil.rpc<{ from: string }>('eth_getTransactionByHash', [done.txHash]);
    expect(tx.from.toLowerCase()).toBe(made.body.address.toLowerCase());
    const receipt = await anvil.rpc<{ gasUsed: string; effectiveGasPrice: string }>('eth_getTransactionReceipt', [done.txHash]);
    const fee = BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice);
    expect(await balance(made.body.address)).toBe(2n * ETH - ETH / 4n - fee);
    expect(await balance(derived.body.address)).toBe(ETH / 4n);
    const held = await ethBalance(walletId);
    expect(held).toMatchObject({ reserved: '0' });
    expect(baseUnits(held.confirmed, 18)).toBe(2n * ETH - fee);

    const signed = await t
      .db('audit_log')
      .where({ action: 'withdrawal.signed', target_id: String(prepared.body.id) })
      .first();
    expect(signed.details).toEqual({ keyHeldIn: 'kms', txHash: done.txHash });
    expect(await kmsSignatures()).toBe(before + 1);
    expect(kms.calls.filter((c) => c.operation === 'Sign' && c.keyId === keyId)).toHaveLength(signsBefore + 1);
  });

  it('refuses a key of another curve, an unknown key and a reused key with 4xx naming the cause, writing nothing', async () => {
    const walletId = await b.newWallet('refusals');
    const ed = kms.createKey('ECC_NIST_EDWARDS25519');
    const wrong = await b.api('POST', `/wallets/${walletId}/addresses`, { keyHeldIn: 'kms', kmsKeyId: ed });
    expect(wrong.status).toBe(422);
    expect(wrong.body.message).toBe(
      `the KMS key ${ed} is ECC_NIST_EDWARDS25519 (ed25519); ethereum signs with secp256k1: use a ECC_SECG_P256K1 key`,
    );
    const p256 = kms.createKey('ECC_NIST_P256');
    const nist = await b.api('POST', `/wallets/${walletId}/addresses`, { keyHeldIn: 'kms', kmsKeyId: p256 });
    expect(nist.status).toBe(422);
    expect(nist.body.message).toContain('is ECC_NIST_P256 for SIGN_VERIFY');
    const unknown = await b.api('POST', `/wallets/${walletId}/addresses`, { keyHeldIn: 'kms', kmsKeyId: 'alias/nobody' });
    expect(unknown.status).toBe(422);
    expect(unknown.body.message).toMatch(/^KMS GetPublicKey for alias\/nobody failed: NotFoundException/);
    expect((await b.api('POST', `/wallets/${walletId}/addresses`, { keyHeldIn: 'kms' })).status).toBe(400);
    expect((await b.api('POST', `/wallets/${walletId}/addresses`, { kmsKeyId: ed })).status).toBe(400);
    expect(await t.db('addresses').where({ wallet_id: walletId }).count()).toEqual([{ count: 0 }]);

    const key = kms.createKey('ECC_SECG_P256K1');
    const first = await kmsAddress(walletId, key);
    const again = await b.api('POST', `/wallets/${walletId}/addresses`, { keyHeldIn: 'kms', kmsKeyId: key });
    expect(again.status).toBe(409);
    expect(again.body.message).toBe(`the KMS key ${key} is already address ${first.id} of wallet ${walletId} on ethereum`);
  });

  it('AccessDenied on Sign: a clear 502 without credentials, nothing signed, the withdrawal stays prepared and its cancel releases the funds', async () => {
    const keyId = kms.createKey('ECC_SECG_P256K1');
    const walletId = await b.newWallet('denied');
    const source = await kmsAddress(walletId, keyId);
    const to = (await b.api('POST', `/wallets/${walletId}/addresses`)).body.address as string;
    await anvil.send(source.address, ETH);
    await round(2);
    const before = await kmsSignatures();
    kms.fail(keyId, 'Sign', 'AccessDeniedException');
    const prepared = await b.api('POST', `/wallets/${walletId}/withdrawals`, {
      asset: 'ETH',
      toAddress: to,
      amount: '0.5',
      fromAddress: source.address,
      idempotencyKey: 'kms-denied',
    });
    expect(prepared.status).toBe(201);
    expect(baseUnits((await ethBalance(walletId)).reserved, 18)).toBeGreaterThan(ETH / 2n);

    const refused = await b.api('POST', `/withdrawals/${prepared.body.id}/broadcast`);
    expect(refused.status).toBe(502);
    expect(refused.body.code).toBe('kms_error');
    expect(refused.body.message).toMatch(
      new RegExp(`^KMS Sign for ${keyId} failed: AccessDeniedException: User: .* is not authorized to perform: kms:Sign`),
    );
    const text = JSON.stringify(refused.body);
    for (const secret of [kms.secretAccessKey, kms.accessKeyId]) expect(text).not.toContain(secret);
    expect(text).not.toMatch(/\bat \S+ \(/); // no stack frame

    const after = (await b.api('GET', `/withdrawals/${prepared.body.id}`)).body;
    expect(after).toMatchObject({ status: 'prepared', txHash: null, lastError: refused.body.message });
    expect(await t.db('audit_log').where({ action: 'withdrawal.signed', target_id: String(prepared.body.id) })).toHaveLength(0);
    expect(await kmsSignatures()).toBe(before);

    const cancelled = await b.api('POST', `/withdrawals/${prepared.body.id}/cancel`);
    expect(cancelled.body).toMatchObject({ status: 'cancelled' });
    const held = await ethBalance(walletId);
    expect(held).toMatchObject({ reserved: '0', confirmed: '1', available: '1' });
    expect(await balance(source.address)).toBe(ETH);
  });

  it('an alias moved to another key signs nothing: 409 naming the address, the withdrawal left prepared', async () => {
    const first = kms.createKey('ECC_SECG_P256K1');
    kms.alias('alias/walletd-moved', first);
    const walletId = await b.newWallet('moved');
    const source = await kmsAddress(walletId, 'alias/walletd-moved');
    expect(source.address).toBe(computeAddress(hexlify(kms.publicKey(first).subarray(-65))));
    const to = (await b.api('POST', `/wallets/${walletId}/addresses`)).body.address as string;
    await anvil.send(source.address, ETH);
    await round(2);
    kms.alias('alias/walletd-moved', kms.createKey('ECC_SECG_P256K1'));
    const prepared = await b.api('POST', `/wallets/${walletId}/withdrawals`, {
      asset: 'ETH',
      toAddress: to,
      amount: '0.1',
      fromAddress: source.address,
      idempotencyKey: 'kms-moved',
    });
    const signs = () => kms.calls.filter((c) => c.operation === 'Sign').length;
    const signsBefore = signs();
    const refused = await b.api('POST', `/withdrawals/${prepared.body.id}/broadcast`);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(
      new RegExp(
        `^the KMS key alias/walletd-moved is no longer the key of ${source.address} \\(it gives 0x[0-9a-fA-F]{40}\\): nothing was signed$`,
      ),
    );
    expect((await b.api('GET', `/withdrawals/${prepared.body.id}`)).body).toMatchObject({ status: 'prepared', txHash: null });
    expect(signs()).toBe(signsBefore);
    expect(await balance(source.address)).toBe(ETH);
  });

  it('the emulator checks SigV4: a wrong secret is refused as KMS would, the secret never in the error', async () => {
    const keyId = kms.createKey('ECC_SECG_P256K1');
    const wrong = { accessKeyId: kms.accessKeyId, secretAccessKey: 'not-the-secret-000000000000000000000000' };
    const refused = await awsKmsSigner({ keyId, region: REGION, endpoint: kms.url, credentials: wrong }).catch((e) => e);
    expect(refused).toBeInstanceOf(BaseError);
    expect(refused.code).toBe('kms_error');
    expect(refused.message).toMatch(new RegExp(`^KMS GetPublicKey for ${keyId} failed: InvalidSignatureException`));
    expect(refused.message).not.toContain(wrong.secretAccessKey);
    const right = await awsKmsSigner({ keyId, region: REGION, endpoint: kms.url });
    expect(Buffer.from(right.publicKey())).toEqual(kms.publicKey(keyId).subarray(-65));
    right.close();
  });

  it('a throttled Sign is retried by the SDK and the withdrawal goes through', async () => {
    const keyId = kms.createKey('ECC_SECG_P256K1');
    const walletId = await b.newWallet('throttled');
    const source = await kmsAddress(walletId, keyId);
    const to = (await b.api('POST', `/wallets/${walletId}/addresses`)).body.address as string;
    await anvil.send(source.address, ETH);
    await round(2);
    kms.fail(keyId, 'Sign', 'ThrottlingException');
    const prepared = await b.api('POST', `/wallets/${walletId}/withdrawals`, {
      asset: 'ETH',
      toAddress: to,
      amount: '0.1',
      fromAddress: source.address,
      idempotencyKey: 'kms-throttled',
    });
    const sent = await b.api('POST', `/withdrawals/${prepared.body.id}/broadcast`);
    expect(sent.status).toBe(200);
    expect(kms.calls.filter((c) => c.operation === 'Sign' && c.keyId === keyId).map((c) => c.ok)).toEqual([false, true]);
    await round(3);
    expect((await b.api('GET', `/withdrawals/${prepared.body.id}`)).body).toMatchObject({ status: 'confirmed' });
    expect(await balance(to)).toBe(ETH / 10n);
  });

  it('a gas station held in KMS: made with POST, its top-up signed in KMS lands and the USDC sweep it paid for follows', async () => {
    const keyId = kms.createKey('ECC_SECG_P256K1');
    const walletId = await b.newWallet('customers');
    const treasury = await b.newAddress(walletId);
    const source = await b.newAddress(walletId);
    const ed = await b.api('POST', `/wallets/${walletId}/gas-station`, {
      keyHeldIn: 'kms',
      kmsKeyId: kms.createKey('ECC_NIST_EDWARDS25519'),
    });
    expect(ed.status).toBe(422);
    const made = await b.api('POST', `/wallets/${walletId}/gas-station`, { keyHeldIn: 'kms', kmsKeyId: keyId });
    expect(made.status).toBe(201);
    expectSchema('GasStation', made.body);
    expect(made.body).toMatchObject({ keyHeldIn: 'kms', path: `awskms:${keyId}` });
    expect(made.body.address).toBe(computeAddress(hexlify(kms.publicKey(keyId).subarray(-65))));
    expect((await b.gasStation(walletId)).body).toMatchObject({ address: made.body.address, keyHeldIn: 'kms' });
    const again = await b.api('POST', `/wallets/${walletId}/gas-station`, { keyHeldIn: 'kms', kmsKeyId: kms.createKey('ECC_SECG_P256K1') });
    expect(again.status).toBe(409);

    await usdc.mint(source, 50n * USDC);
    await anvil.send(made.body.address, ETH);
    await round(2);
    const before = await kmsSignatures();
    await b.addRule(walletId, { asset: 'USDC', destination: treasury, threshold: '5', trigger: 'schedule', intervalSeconds: 3600 });
    const now = Date.now();
    expect(await b.runSweeps(now)).toMatchObject({ toppedUp: 1, failed: 0 });
    await round(3);
    expect(await b.runSweeps(now)).toMatchObject({ sent: 1, failed: 0 });
    await round(3);

    const all = await b.withdrawals(walletId);
    const topUp = all.find((w) => w.kind === 'gas_topup');
    expect(topUp).toMatchObject({ fromAddress: made.body.address, toAddress: source, status: 'confirmed' });
    expect(all.find((w) => w.kind === 'sweep')).toMatchObject({ fromAddress: source, toAddress: treasury, status: 'confirmed' });
    const balanceOf = `0x70a08231${treasury.slice(2).toLowerCase().padStart(64, '0')}`;
    expect(BigInt(await anvil.rpc<string>('eth_call', [{ to: usdc.address, data: balanceOf }, 'latest']))).toBe(50n * USDC);
    const onChain = await anvil.rpc<{ from: string }>('eth_getTransactionByHash', [topUp?.txHash]);
    expect(onChain.from.toLowerCase()).toBe(made.body.address.toLowerCase());
    const signed = await t
      .db('audit_log')
      .where({ action: 'withdrawal.signed', target_id: String(topUp?.id) })
      .first();
    expect(signed.details).toEqual({ keyHeldIn: 'kms', txHash: topUp?.txHash });
    // The runner's own process counts it (b.common.metrics), not the API's.
    const runner = await b.common.metrics?.kmsSignatures.get();
    expect(runner?.values.find((v) => v.labels.curve === 'secp256k1')?.value).toBe(1);
    expect(await kmsSignatures()).toBe(before);
  });
});
