import { randomBytes } from 'node:crypto';
import { Address, beginCell, toNano } from '@ton/core';
import { WalletContractV5R1 } from '@ton/ton';
import { type ChainSettings, MasterKey, tokenSigner } from '@walletd/core';
import {
  createTestDatabase,
  describeWithSoftHsm,
  expectSchema,
  newSoftHsmToken,
  SOFTHSM_MODULE,
  softHsmKeySettings,
  type SoftHsmToken,
  sweepBench,
  type TestDatabase,
  TonSandboxNode,
} from '@walletd/test-harness';

const TON = 10n ** 9n;

/**
 * Issue 45 §3 on TON: `POST /v1/wallets/:id/addresses {keyHeldIn: token}` generates an Ed25519 key
 * pair inside the PKCS#11 token (SoftHSM2, `CKM_EDDSA`); its address is the wallet v5r1 contract of
 * the token's public key (as @ton/ton derives it, mainnet's network id as the sandbox runs); a
 * withdrawal from it is signed in the token (the signed body cell's hash), @ton/sandbox deploys the
 * wallet and executes the transfer, and the API's process counts the signature.
 */
describeWithSoftHsm('a TON address whose key is held in the token (sandbox)', () => {
  let t: TestDatabase;
  let node: TonSandboxNode;
  let token: SoftHsmToken;
  const label = `ton-key-${process.pid}`;
  const b = sweepBench(new MasterKey(randomBytes(32)), {
    masterKey: {
      gasStationsInToken: true,
      pkcs11: softHsmKeySettings(label),
    },
  });
  const round = async () => {
    node.mine();
    await b.follower.tick();
  };
  const balance = async (a: Address) => (await node.chain.getContract(a)).balance;
  const tokenSignatures = async () =>
    Number(/^walletd_token_signatures_total\{curve="ed25519"\} (\d+)$/m.exec(await (await fetch(`${b.app.url}/metrics`)).text())?.[1] ?? 0);

  let mint: (to: Address, amount: bigint) => Promise<void>;

  beforeAll(async () => {
    token = newSoftHsmToken(label);
    t = await createTestDatabase();
    node = await TonSandboxNode.start();
    const { JettonMinter } = require('@ton-community/assets-sdk') as typeof import('@ton-community/assets-sdk');
    const admin = await node.chain.treasury('admin');
    const m = node.chain.openContract(JettonMinter.createFromConfig({ admin: admin.address, content: beginCell().endCell() }));
    node.record(await m.sendDeploy(admin.getSender(), toNano('0.1')));
    mint = async (to, amount) => {
      node.record(await m.sendMint(admin.getSender(), to, amount, { value: toNano('0.2'), notify: { amount: 1n } }));
    };
    const settings: ChainSettings = {
      chain: 'ton',
      network: 'localnet',
      rpcUrl: node.url,
      startBlock: node.mine() + 1,
      tokens: [{ contract: m.address.toString(), symbol: 'USDT', decimals: 6 }],
    };
    await b.start(t.db, settings);
  }, 120_000);
  afterAll(async () => {
    await b.stop();
    await node?.close();
    await t?.drop();
  });

  it('the address is the token key’s v5r1 wallet; a withdrawal from it is signed there, deployed and executed by the sandbox, and counted', async () => {
    const walletId = await b.newWallet('treasury');
    const made = await b.api('POST', `/wallets/${walletId}/addresses`, { label: 'hot', keyHeldIn: 'token' });
    expect(made.status).toBe(201);
    expectSchema('Address', made.body);
    const keyLabel = `walletd-address-${walletId}-${made.body.index}`;
    expect(made.body).toMatchObject({ keyHeldIn: 'token', path: `pkcs11:${keyLabel}`, label: 'hot' });
    const held = tokenSigner({ module: SOFTHSM_MODULE, tokenLabel: token.label, pin: token.pin, keyLabel }, 'ed25519');
    const wallet = WalletContractV5R1.create({ publicKey: Buffer.from(held.publicKey()), walletId: { networkGlobalId: -239 } });
    held.close();
    const source = Address.parse(made.body.address);
    expect(source.equals(wallet.address)).toBe(true);

    const admin = await node.chain.treasury('admin');
    node.record(await admin.send({ to: source, value: 5n * TON, bounce: false }));
    await round();
    // A fresh account (never seen on chain): a non-bounceable transfer leaves it exactly the amount.
    const recipient = new Address(0, randomBytes(32));
    const before = await tokenSignatures();
    const prepared = await b.api('POST', `/wallets/${walletId}/withdrawals`, {
      asset: 'TON',
      toAddress: recipient.toString({ bounceable: false, urlSafe: true, testOnly: true }),
      amount: '1.25',
      fromAddress: made.body.address,
      idempotencyKey: 'ton-hot-out',
    });
    expect(prepared.status).toBe(201);
    const sent = await b.api('POST', `/withdrawals/${prepared.body.id}/broadcast`);
    expect(sent.status).toBe(200);
    await round();
    await round();
    const done = (await b.api('GET', `/withdrawals/${prepared.body.id}`)).body;
    expect(done).toMatchObject({ status: 'confirmed', fromAddress: made.body.address, amount: '1.25' });
    expect(await balance(recipient)).toBe(1_250_000_000n);
    // The sandbox ran the wallet's code on the token's signature: the wallet is deployed with seqno 1.
    expect((await node.chain.getContract(source)).accountState?.type).toBe('active');
    expect(await node.chain.openContract(wallet).getSeqno()).toBe(1);
    const signed = await t
      .db('audit_log')
      .where({ action: 'withdrawal.signed', target_id: String(prepared.body.id) })
      .first();
    // Audited as signed in the token (its txHash is the external message's; the row's is the chain's transaction's).
    expect(signed.details).toMatchObject({ keyHeldIn: 'token', txHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(await tokenSignatures()).toBe(before + 1);
  });

  it('a gas station held in the token: its top-up of an undeployed jetton holder is signed there and executed, then the sweep follows', async () => {
    const walletId = await b.newWallet('customers');
    const treasury = await b.newAddress(walletId);
    const holder = await b.newAddress(walletId);
    await mint(Address.parse(holder), 25_000_000n);
    await round();
    const station = (await b.gasStation(walletId)).body;
    expectSchema('GasStation', station);
    const keyLabel = `walletd-gas-station-${walletId}`;
    expect(station).toMatchObject({ keyHeldIn: 'token', path: `pkcs11:${keyLabel}` });
    const held = tokenSigner({ module: SOFTHSM_MODULE, tokenLabel: token.label, pin: token.pin, keyLabel }, 'ed25519');
    const wallet = WalletContractV5R1.create({ publicKey: Buffer.from(held.publicKey()), walletId: { networkGlobalId: -239 } });
    held.close();
    expect(Address.parse(station.address).equals(wallet.address)).toBe(true);
    const admin = await node.chain.treasury('admin');
    node.record(await admin.send({ to: wallet.address, value: 1n * TON, bounce: false }));
    await round();

    const counted = async () =>
      (await b.common.metrics?.tokenSignatures.get())?.values.find((v) => v.labels.curve === 'ed25519')?.value ?? 0;
    const before = await counted();
    expect((await b.addRule(walletId, { asset: 'USDT', destination: treasury })).status).toBe(201);
    expect(await b.runSweeps()).toMatchObject({ toppedUp: 1, sent: 0, failed: 0 });
    await round();
    expect(await b.runSweeps()).toMatchObject({ toppedUp: 0, sent: 1, failed: 0 });
    await round();
    await round();
    const all = await b.withdrawals(walletId);
    expect(all.find((w) => w.kind === 'gas_topup')).toMatchObject({ fromAddress: station.address, toAddress: holder, status: 'confirmed' });
    expect(all.find((w) => w.kind === 'sweep')).toMatchObject({
      fromAddress: holder,
      toAddress: treasury,
      amount: '25',
      status: 'confirmed',
    });
    // The station's wallet ran its code on the token's signature: deployed, seqno 1.
    expect(await node.chain.openContract(wallet).getSeqno()).toBe(1);
    expect(await counted()).toBe(before + 1);
  });
});
