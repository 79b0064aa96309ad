import { Address, Cell, SendMode, beginCell, external, internal, storeMessage, toNano } from '@ton/core';
import { BaseError, type UnsignedWithdrawal, type WithdrawalIntent, openWalletSecret } from '@walletd/core';
import { TON_FEE_BOUND, type TonPayload, type TonReader, createTonPlugin, tonKey, walletOf } from '@walletd/plugin-ton';
import { TonSandboxNode, nativeAsset } from '@walletd/test-harness';

/**
 * TON withdrawals executed by @ton/sandbox (the real emulator: wallet v5r1, jetton wallets, fees,
 * bounces) through the plugin's own toncenter reader and the test adapter.
 */
describe('TON withdrawals on the sandbox', () => {
  const plugin = createTonPlugin();
  const verbs = plugin.withdrawals!;
  const secret = openWalletSecret(Buffer.from('legal winner thank year wave sausage worth useful legal winner thank yellow'));
  const source = plugin.deriveAddress('ton', 'localnet', secret, 0).address;
  const TON = nativeAsset('ton', 'localnet');
  let node: TonSandboxNode;
  let reader: TonReader;
  let recipient: Address;

  beforeAll(async () => {
    node = await TonSandboxNode.start();
    reader = plugin.createReader('ton', 'localnet', { rpcUrl: node.url, retries: 0 });
    const admin = await node.chain.treasury('admin');
    recipient = (await node.chain.treasury('exchange')).address;
    node.record(await admin.send({ to: Address.parse(source), value: toNano('10'), bounce: false }));
    node.mine();
  });
  afterAll(async () => {
    await node.close();
  });

  const intent = (to: string, amount: bigint, memo?: string, asset = TON): WithdrawalIntent => ({
    chain: 'ton',
    network: 'localnet',
    asset,
    outputs: [{ to, amount, ...(memo !== undefined ? { memo } : {}) }],
    sources: [source],
  });
  const balance = async (a: Address) => (await node.chain.getContract(a)).balance;

  /** Signed with the wallet's real key, as an outside signer would, with one thing changed. */
  const signedElsewhere = (prepared: UnsignedWithdrawal, over: { sendMode?: number; seqno?: number; timeout?: number; body?: Cell }) => {
    const p = prepared.payload as TonPayload;
    const key = tonKey(secret.seed(), 0);
    const wallet = walletOf('localnet', key.publicKey);
    const body = wallet.createTransfer({
      seqno: over.seqno ?? p.seqno,
      secretKey: key.secretKey,
      timeout: over.timeout ?? p.validUntil,
      sendMode: over.sendMode ?? SendMode.PAY_GAS_SEPARATELY + SendMode.IGNORE_ERRORS,
      messages: [
        internal({
          to: Address.parseRaw(p.message.to),
          value: BigInt(p.message.value),
          bounce: p.message.bounce,
          body: over.body ?? (p.message.body ? Cell.fromBase64(p.message.body) : undefined),
        }),
      ],
    });
    const ext = external({ to: wallet.address, init: p.deploy ? wallet.init : undefined, body });
    return beginCell().store(storeMessage(ext)).endCell().toBoc().toString('base64');
  };
  /** checkSigned's refusal as [code, message], or null when it accepts. */
  const refusal = (prepared: UnsignedWithdrawal, raw: string) => {
    try {
      verbs.checkSigned(prepared, raw, prepared);
      return null;
    } catch (e) {
      return [(e as BaseError).code, (e as Error).message];
    }
  };

  it('pays TON from an undeployed wallet (state-init on its first send) with the memo; the fee is exactly what the wallet lost beyond the amount; a replay changes nothing', async () => {
    const prepared = await verbs.build(
      intent(recipient.toString({ bounceable: true, testOnly: true }), 1_500_000_000n, 'payout 1'),
      reader,
    );
    const p = prepared.payload as TonPayload;
    expect([p.deploy, p.seqno, prepared.fee]).toEqual([true, 0, TON_FEE_BOUND]);
    const signed = await verbs.sign(prepared, secret, [0]);
    const before = await balance(Address.parse(source));
    const recipientBefore = await balance(recipient);
    expect(await verbs.verify(prepared, signed.txHash, reader)).toMatchObject({ status: 'missing' });
    await verbs.broadcast(signed, reader);
    node.mine();
    await verbs.broadcast(signed, reader); // the same bytes again (a retry after a crash): the wallet refuses the used seqno; applied already
    const verdict = await verbs.verify(prepared, signed.txHash, reader);
    expect(verdict.status).toBe('confirmed');
    const lost = before - (await balance(Address.parse(source)));
    expect(verdict.fee).toBe(lost - 1_500_000_000n);
    expect(await balance(recipient)).toBeGreaterThan(recipientBefore);
    expect((await node.chain.getContract(Address.parse(source))).accountState?.type).toBe('active');
    expect(node.sent).toHaveLength(2);
  });

  it('a transfer that bounces (bounceable to an undeployed account) is failed_on_chain', async () => {
    const nobody = new Address(0, Buffer.alloc(32, 9));
    const prepared = await verbs.build(intent(nobody.toString({ bounceable: true, testOnly: true }), 100_000_000n), reader);
    expect((prepared.payload as TonPayload).message.bounce).toBe(true);
    const signed = await verbs.sign(prepared, secret, [0]);
    await verbs.broadcast(signed, reader);
    node.mine();
    expect(await verbs.verify(prepared, signed.txHash, reader)).toMatchObject({ status: 'rejected', reason: 'failed_on_chain' });
  });

  it("pays a jetton through the wallet's own jetton wallet: the recipient credited, the fee includes the TON kept by the jetton wallets", async () => {
    const { JettonMinter, JettonWallet } = require('@ton-community/assets-sdk') as typeof import('@ton-community/assets-sdk');
    const admin = await node.chain.treasury('admin');
    const minter = node.chain.openContract(JettonMinter.createFromConfig({ admin: admin.address, content: beginCell().endCell() }));
    node.record(await minter.sendDeploy(admin.getSender(), toNano('0.1')));
    node.record(await minter.sendMint(admin.getSender(), Address.parse(source), 40_000_000n, { value: toNano('0.2') }));
    node.mine();
    const USDT = {
      key: `ton:localnet:${minter.address.toRawString()}`,
      symbol: 'USDT',
      decimals: 6,
      contractAddress: minter.address.toString(),
    };
    const refused = await verbs.build(intent(recipient.toString(), 40_000_001n, undefined, USDT), reader).catch((e) => e);
    expect(refused).toBeInstanceOf(BaseError);
    expect((refused as BaseError).code).toBe('insufficient_funds');
    const prepared = await verbs.build(intent(recipient.toString(), 12_000_000n, 'inv 9', USDT), reader);
    // Signed elsewhere: the same jetton transfer, but the unused TON goes to someone else.
    const transfer = Cell.fromBase64((prepared.payload as TonPayload).message.body as string).beginParse();
    const [op, queryId, amount, destination] = [
      transfer.loadUint(32),
      transfer.loadUintBig(64),
      transfer.loadCoins(),
      transfer.loadAddress(),
    ];
    transfer.loadMaybeAddress(); // the response destination: the wallet itself
    const elsewhere = beginCell()
      .storeUint(op, 32)
      .storeUint(queryId, 64)
      .storeCoins(amount)
      .storeAddress(destination)
      .storeAddress(recipient)
      .storeSlice(transfer)
      .endCell();
    expect(refusal(prepared, signedElsewhere(prepared, {}))).toBeNull();
    expect(refusal(prepared, signedElsewhere(prepared, { body: elsewhere }))).toEqual([
      'unprocessable',
      expect.stringMatching(/excess TON/),
    ]);
    const signed = await verbs.sign(prepared, secret, [0]);
    const before = await balance(Address.parse(source));
    await verbs.broadcast(signed, reader);
    node.mine();
    const verdict = await verbs.verify(prepared, signed.txHash, reader);
    expect(verdict.status).toBe('confirmed');
    const lost = before - (await balance(Address.parse(source)));
    expect(verdict.fee).toBe(lost);
    const theirs = node.chain.openContract(JettonWallet.createFromAddress(await minter.getWalletAddress(recipient)));
    expect((await theirs.getData()).balance).toBe(12_000_000n);
  });

  it('past valid_until without landing: rejected expired; the wallet refuses the message if sent then', async () => {
    const prepared = await verbs.build(intent(recipient.toString(), 1_000_000n), reader);
    const signed = await verbs.sign(prepared, secret, [0]);
    const later = ((prepared.payload as TonPayload).validUntil + 60) * 1000;
    const spy = jest.spyOn(Date, 'now').mockReturnValue(later);
    try {
      expect(await verbs.verify(prepared, signed.txHash, reader)).toEqual({ status: 'rejected', confirmations: 0, reason: 'expired' });
    } finally {
      spy.mockRestore();
    }
    node.chain.now = (prepared.payload as TonPayload).validUntil + 60;
    try {
      await expect(verbs.broadcast(signed, reader)).rejects.toThrow(/prepare it again/);
    } finally {
      node.chain.now = undefined;
    }
  });

  it('accepts a message signed elsewhere only when it can do no more than the intent: send mode, seqno, valid_until, body', async () => {
    const prepared = await verbs.build(intent(recipient.toString(), 2_000_000n), reader);
    expect(refusal(prepared, signedElsewhere(prepared, {}))).toBeNull();
    expect(refusal(prepared, signedElsewhere(prepared, { sendMode: SendMode.PAY_GAS_SEPARATELY }))).toBeNull();
    // Mode 128 with value = the amount sends the whole balance; mode 0 takes the fees out of the amount
    // (the v5r1 wallet code adds IGNORE_ERRORS, 2, to an external request's mode).
    expect(refusal(prepared, signedElsewhere(prepared, { sendMode: SendMode.CARRY_ALL_REMAINING_BALANCE }))).toEqual([
      'unprocessable',
      expect.stringMatching(/sends with mode 130;/),
    ]);
    expect(refusal(prepared, signedElsewhere(prepared, { sendMode: SendMode.NONE }))).toEqual([
      'unprocessable',
      expect.stringMatching(/sends with mode 2;/),
    ]);
    // A seqno far ahead or a valid_until years away would hold the wallet's next seqno for good.
    expect(refusal(prepared, signedElsewhere(prepared, { seqno: 2 ** 32 - 1 }))).toEqual(['unprocessable', expect.stringMatching(/seqno/)]);
    expect(refusal(prepared, signedElsewhere(prepared, { timeout: 2 ** 32 - 1 }))).toEqual([
      'unprocessable',
      expect.stringMatching(/valid until/),
    ]);
    // A binary body reads as no comment, but the intent carries no body at all.
    const binary = beginCell().storeUint(0xdeadbeef, 32).storeUint(7, 64).endCell();
    expect(refusal(prepared, signedElsewhere(prepared, { body: binary }))).toEqual(['unprocessable', expect.stringMatching(/body/)]);
  });

  it('a withdrawal pushed out of the 32 newest transactions by a burst of deposits is confirmed, not expired (no second payment)', async () => {
    const prepared = await verbs.build(intent(recipient.toString(), 3_000_000n), reader);
    const signed = await verbs.sign(prepared, secret, [0]);
    await verbs.broadcast(signed, reader);
    node.mine();
    const admin = await node.chain.treasury('admin');
    for (let i = 0; i < 40; i++) node.record(await admin.send({ to: Address.parse(source), value: toNano('0.01'), bounce: false }));
    node.mine();
    expect((await reader.transactions(Address.parse(source), 32)).length).toBe(32);
    // Judged after valid_until: the old reading of the newest page alone answered `expired` here.
    const later = ((prepared.payload as TonPayload).validUntil + 60) * 1000;
    const spy = jest.spyOn(Date, 'now').mockReturnValue(later);
    try {
      expect(await verbs.verify(prepared, signed.txHash, reader)).toMatchObject({ status: 'confirmed' });
    } finally {
      spy.mockRestore();
    }
  });
});
