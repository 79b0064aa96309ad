import { createHash } from 'node:crypto';
import { type AssetRef, BaseError, type UnsignedWithdrawal, type WithdrawalIntent, openWalletSecret } from '@walletd/core';
import { type TronReader, type TronTxPayload, createTronPlugin, tronProtobuf } from '@walletd/plugin-tron';
import { type RecordedTronNode, USDT, startRecordedTronNode, tronBase58, nativeAsset } from '@walletd/test-harness';
import { utils } from 'tronweb';

/**
 * Tron withdrawals against the recorded-response server (test/src/harness/recordedTronNode.ts).
 * Every transaction the plugin builds is verified offline with tronweb, independently of the
 * plugin's own encoder: its txID recomputed from the raw bytes, the signer recovered with
 * tronweb's ecRecover, the contract decoded with tronweb's protobuf classes. What this cannot
 * prove: that a java-tron node would execute them as the server says (no state execution; the
 * outcome of a contract call is the test's choice).
 */
const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const secret = openWalletSecret(Buffer.from(MNEMONIC));
const plugin = createTronPlugin();
const verbs = plugin.withdrawals as NonNullable<typeof plugin.withdrawals>;
const source = plugin.deriveAddress('tron', 'devnet', secret, 0).address;
const RECIPIENT = 'TJ4eV1hnVAiFmeArBsuL6GkgTGVnWBe7eV';
const USDT_ASSET: AssetRef = {
  key: 'tron:devnet:a614f803b6fd780986a42c78ec9c7f77e6ded13c',
  symbol: 'USDT',
  decimals: 6,
  contractAddress: USDT,
};
const TRX = nativeAsset('tron', 'devnet');

const intent = (asset: AssetRef, amount: bigint, to = RECIPIENT, memo?: string): WithdrawalIntent => ({
  chain: 'tron',
  network: 'devnet',
  asset,
  outputs: [{ to, amount, ...(memo !== undefined ? { memo } : {}) }],
  sources: [source],
});

/** What tronweb reads from the signed bytes alone: txID, signer, and the decoded contract. */
function offline(raw: string) {
  const pb = (globalThis as any).TronWebProto.Transaction.deserializeBinary(Buffer.from(raw, 'hex'));
  const rawBytes: Uint8Array = pb.getRawData().serializeBinary();
  const txID = createHash('sha256').update(rawBytes).digest('hex');
  const type = pb.getRawData().getContractList()[0].getType() === 1 ? 'TransferContract' : 'TriggerSmartContract';
  const decoded = utils.deserializeTx.deserializeTransaction(type, Buffer.from(rawBytes).toString('hex'));
  const signature = Buffer.from(pb.getSignatureList_asU8()[0]).toString('hex');
  const signer = utils.crypto.getBase58CheckAddress(Array.from(Buffer.from(utils.crypto.ecRecover(txID, signature), 'hex')));
  return { txID, type, decoded, value: decoded.contract[0].parameter.value, signer, signatures: pb.getSignatureList_asU8().length };
}

describe('Tron withdrawals on the recorded-response server, verified offline with tronweb', () => {
  let node: RecordedTronNode;
  let reader: TronReader;

  beforeAll(async () => {
    node = await startRecordedTronNode({ head: 5000 });
    reader = plugin.createReader('tron', 'devnet', { rpcUrl: node.url });
    node.setBalance(source, 1_000_000_000n); // 1000 TRX
    node.setBalance(RECIPIENT, 1n); // an existing account
    node.setTokenBalance(USDT, source, 500_000_000n); // 500 USDT
  });
  afterAll(async () => {
    await node.close();
  });

  it('TRX: build, sign; tronweb recomputes the txID, recovers the source, decodes exactly the intent; broadcast twice; confirmed with the exact fee', async () => {
    const prepared = await verbs.build(intent(TRX, 12_345_678n), reader);
    const p = prepared.payload as TronTxPayload;
    // The reference block is the node's head; the transaction expires an hour after it.
    expect(p.refBlockHash).toBe(((await reader.nowBlock()).blockID as string).slice(16, 32));
    expect(prepared.expiresAt).toEqual({ time: new Date(p.refBlockTime + 3_600_000).toISOString() });
    // An existing recipient and the daily free bandwidth available: nothing is burned.
    expect(prepared.fee).toBe(0n);
    const signed = await verbs.sign(prepared, secret, [0]);
    const o = offline(signed.raw);
    expect(o.txID).toBe(signed.txHash);
    expect(o.signatures).toBe(1);
    expect(o.signer).toBe(source);
    expect(o.type).toBe('TransferContract');
    expect(tronBase58(o.value.owner_address)).toBe(source);
    expect(tronBase58(o.value.to_address)).toBe(RECIPIENT);
    expect(BigInt(o.value.amount)).toBe(12_345_678n);
    expect(o.decoded.data).toBe('');
    expect(o.decoded.expiration).toBe(p.expiration);

    expect(verbs.checkSigned(prepared, signed.raw, prepared).signed.txHash).toBe(signed.txHash);
    await verbs.broadcast(signed, reader);
    await verbs.broadcast(signed, reader); // DUP_TRANSACTION_ERROR from the node: already has it
    expect(node.broadcasts(signed.txHash)).toBe(1);
    expect(await verbs.verify(prepared, signed.txHash, reader)).toEqual({ status: 'pending', confirmations: 0 });
    const mined = node.mine();
    node.mine(2);
    expect(await verbs.verify(prepared, signed.txHash, reader)).toEqual({
      status: 'confirmed',
      confirmations: 3,
      fee: 0n,
      blockNumber: BigInt(mined),
    });
    expect(node.balance(RECIPIENT)).toBe(12_345_679n);
  });

  it('TRX to an account that does not exist yet: the bound counts the creation fees; the receipt fee is reported exactly', async () => {
    const fresh = plugin.deriveAddress('tron', 'devnet', secret, 9).address;
    const prepared = await verbs.build(intent(TRX, 2_000_000n, fresh), reader);
    // getCreateAccountFee (no staked bandwidth) + getCreateNewAccountFeeInSystemContract.
    expect(prepared.fee).toBe(1_100_000n);
    expect((prepared.payload as TronTxPayload).feeParts).toEqual({ bandwidth: '0', newAccount: '1100000', memo: '0', energy: '0' });
    const signed = await verbs.sign(prepared, secret, [0]);
    await verbs.broadcast(signed, reader);
    node.mine();
    expect(await verbs.verify(prepared, signed.txHash, reader)).toMatchObject({ status: 'confirmed', fee: 1_100_000n });
  });

  it('TRX with a memo: raw_data.data carries it, the memo fee is in the bound, a changed or missing memo is refused', async () => {
    const prepared = await verbs.build(intent(TRX, 1_000n, RECIPIENT, 'invoice 7781'), reader);
    expect(prepared.fee).toBe(1_000_000n);
    const signed = await verbs.sign(prepared, secret, [0]);
    expect(Buffer.from(offline(signed.raw).decoded.data, 'hex').toString()).toBe('invoice 7781');
    const other = await verbs.build(intent(TRX, 1_000n, RECIPIENT, 'invoice 7782'), reader);
    expect(() => verbs.checkSigned(other, signed.raw, other)).toThrow(/memo differs/);
    const none = await verbs.build(intent(TRX, 1_000n), reader);
    expect(() => verbs.checkSigned(none, signed.raw, none)).toThrow(/carries a memo the withdrawal does not have/);
  });

  it('TRC-20: transfer(address,uint256) on the intent contract with a fee_limit from the energy estimate; confirmed only with the matching Transfer log', async () => {
    const prepared = await verbs.build(intent(USDT_ASSET, 41_677_389n), reader);
    const p = prepared.payload as TronTxPayload;
    // The recorded 0130dfde used 130285 energy; at 100 sun each, with 30 % headroom.
    expect(p.feeLimit).toBe('16937050');
    expect(prepared.fee).toBe(16_937_050n);
    const signed = await verbs.sign(prepared, secret, [0]);
    const o = offline(signed.raw);
    expect(o.txID).toBe(signed.txHash);
    expect(o.signer).toBe(source);
    expect(o.type).toBe('TriggerSmartContract');
    expect(tronBase58(o.value.contract_address)).toBe(USDT);
    expect(o.value.call_value).toBe(0);
    expect(o.value.call_token_value).toBe(0);
    const data = String(o.value.data).toLowerCase();
    expect(data.slice(0, 8)).toBe('a9059cbb');
    expect(tronBase58(data.slice(32, 72))).toBe(RECIPIENT);
    expect(BigInt(`0x${data.slice(72)}`)).toBe(41_677_389n);
    expect(o.decoded.fee_limit).toBe(16937050);

    const token = await verbs.build(intent(USDT_ASSET, 41_677_389n + 1n), reader);
    expect(() => verbs.checkSigned(token, signed.raw, token)).toThrow(BaseError);
    await verbs.broadcast(signed, reader);
    const block = node.mine();
    const verdict = await verbs.verify(prepared, signed.txHash, reader);
    expect(verdict).toEqual({ status: 'confirmed', confirmations: 1, fee: 13_028_500n, blockNumber: BigInt(block) });
    expect(node.tokenBalance(USDT, RECIPIENT)).toBe(41_677_389n);
  });

  it.each(['REVERT', 'OUT_OF_ENERGY'] as const)('TRC-20 whose call ends %s: failed_on_chain, with the fee it burned', async (outcome) => {
    node.setCallOutcome(outcome);
    try {
      const prepared = await verbs.build(intent(USDT_ASSET, 1_000n), reader);
      const signed = await verbs.sign(prepared, secret, [0]);
      await verbs.broadcast(signed, reader);
      const block = node.mine();
      const verdict = await verbs.verify(prepared, signed.txHash, reader);
      expect(verdict).toMatchObject({ status: 'rejected', reason: 'failed_on_chain', blockNumber: BigInt(block) });
      expect(verdict.fee).toBe(outcome === 'OUT_OF_ENERGY' ? BigInt((prepared.payload as TronTxPayload).feeLimit as string) : 13_028_500n);
    } finally {
      node.setCallOutcome('SUCCESS');
    }
  });

  it('TRC-20 judged by its receipt: an OUT_OF_ENERGY receipt is failed_on_chain even without the FAILED flag beside it', async () => {
    node.setCallOutcome('OUT_OF_ENERGY');
    try {
      const prepared = await verbs.build(intent(USDT_ASSET, 1_000n), reader);
      const signed = await verbs.sign(prepared, secret, [0]);
      await verbs.broadcast(signed, reader);
      node.mine();
      node.rewriteInfo(signed.txHash, ({ result: _r, ...info }) => info);
      expect(await verbs.verify(prepared, signed.txHash, reader)).toMatchObject({ status: 'rejected', reason: 'failed_on_chain' });
    } finally {
      node.setCallOutcome('SUCCESS');
    }
  });

  it('TRC-20 with a SUCCESS receipt but no matching Transfer log: never confirmed (stays pending)', async () => {
    node.setCallOutcome('NO_LOG');
    try {
      const prepared = await verbs.build(intent(USDT_ASSET, 1_000n), reader);
      const signed = await verbs.sign(prepared, secret, [0]);
      await verbs.broadcast(signed, reader);
      node.mine(3);
      expect(await verbs.verify(prepared, signed.txHash, reader)).toMatchObject({ status: 'pending' });
    } finally {
      node.setCallOutcome('SUCCESS');
    }
    // A Transfer log that is not exactly the intent's (another contract, another amount) is no proof either.
    const prepared = await verbs.build(intent(USDT_ASSET, 2_000n), reader);
    const signed = await verbs.sign(prepared, secret, [0]);
    await verbs.broadcast(signed, reader);
    node.mine();
    const log = (info: any) => info.log[0];
    node.rewriteInfo(signed.txHash, (info) => ({ ...info, log: [{ ...log(info), address: '1111111111111111111111111111111111111111' }] }));
    expect(await verbs.verify(prepared, signed.txHash, reader)).toMatchObject({ status: 'pending' });
    node.rewriteInfo(signed.txHash, (info) => ({
      ...info,
      log: [{ ...log(info), address: 'a614f803b6fd780986a42c78ec9c7f77e6ded13c', data: (1999).toString(16).padStart(64, '0') }],
    }));
    expect(await verbs.verify(prepared, signed.txHash, reader)).toMatchObject({ status: 'pending' });
    node.rewriteInfo(signed.txHash, (info) => ({ ...info, log: [{ ...log(info), data: (2000).toString(16).padStart(64, '0') }] }));
    expect(await verbs.verify(prepared, signed.txHash, reader)).toMatchObject({ status: 'confirmed' });
  });

  it('refuses before signing: too little TRX (naming the shortfall), too little token, too little TRX for energy at the paying address', async () => {
    await expect(verbs.build(intent(TRX, 2_000_000_000n), reader)).rejects.toMatchObject({
      code: 'insufficient_funds',
      message: expect.stringMatching(/holds [\d.]+ TRX; the amount plus the fee bound is 2000 TRX \(short by [\d.]+ TRX\)/),
    });
    await expect(verbs.build(intent(USDT_ASSET, 10n ** 12n), reader)).rejects.toMatchObject({
      code: 'insufficient_funds',
      message: /less than the 1000000 to send/,
    });
    const inactive = plugin.deriveAddress('tron', 'devnet', secret, 4).address;
    node.setTokenBalance(USDT, inactive, 5_000_000n); // tokens only: never held TRX, no account yet
    await expect(verbs.build({ ...intent(USDT_ASSET, 1_000_000n), sources: [inactive] }, reader)).rejects.toMatchObject({
      code: 'insufficient_funds',
      message: expect.stringContaining(`${inactive} holds no TRX (the account is not activated)`),
    });
    // What the gas station tops it up with, quoted all the same: the energy simulated from the
    // non-account, and its bandwidth free (the top-up that activates it leaves it 600 bytes a day).
    const quoted = await verbs.quoteFee?.({ ...intent(USDT_ASSET, 1_000_000n), sources: [inactive] }, reader);
    expect(quoted).toBe(16_937_050n);
    const poor = plugin.deriveAddress('tron', 'devnet', secret, 3).address;
    node.setBalance(poor, 1_000_000n);
    node.setTokenBalance(USDT, poor, 5_000_000n);
    await expect(verbs.build({ ...intent(USDT_ASSET, 1_000_000n), sources: [poor] }, reader)).rejects.toMatchObject({
      code: 'insufficient_funds',
      message: `${poor} needs up to 16.93705 TRX for energy and bandwidth and holds 1 TRX (short by 15.93705 TRX); send TRX to it first`,
    });
  });

  it('maps node refusals at broadcast to typed errors', async () => {
    const prepared = await verbs.build(intent(TRX, 1_000n), reader);
    const signed = await verbs.sign(prepared, secret, [0]);
    for (const [code, message, expected] of [
      ['BANDWITH_ERROR', 'account resource insufficient error.', 'insufficient_funds'],
      ['TAPOS_ERROR', 'Tapos check error', 'conflict'],
      ['SIGERROR', Buffer.from('Validate signature error').toString('hex'), 'unprocessable'],
      ['SERVER_BUSY', 'Server busy', 'node_error'],
    ] as const) {
      node.refuseNextBroadcast(code, message);
      await expect(verbs.broadcast(signed, reader)).rejects.toMatchObject({ code: expected, message: expect.stringContaining(code) });
    }
  });

  it('expiry: missing while it can still land, rejected expired once the solidified block is past its expiration', async () => {
    const prepared = await verbs.build(intent(TRX, 1_000n), reader);
    const signed = await verbs.sign(prepared, secret, [0]);
    // Never broadcast: the node does not know it.
    expect(await verbs.verify(prepared, signed.txHash, reader)).toEqual({ status: 'missing', confirmations: 0 });
    node.advanceTime(3_600_000);
    node.mine();
    // The head is past the expiration, the solidified block not yet: not provably final.
    expect(node.solid()).toBeLessThan(node.head());
    expect(await verbs.verify(prepared, signed.txHash, reader)).toEqual({ status: 'missing', confirmations: 0 });
    node.mine(2);
    expect(await verbs.verify(prepared, signed.txHash, reader)).toEqual({ status: 'rejected', confirmations: 0, reason: 'expired' });
    // And the node itself refuses it now.
    await expect(verbs.broadcast(signed, reader)).rejects.toMatchObject({ code: 'conflict', message: /TRANSACTION_EXPIRATION_ERROR/ });
  });

  it('sign refuses a stored payload whose raw_data does not pay its own intent', async () => {
    const prepared = await verbs.build(intent(TRX, 1_000n), reader);
    const tampered: UnsignedWithdrawal = { ...prepared, intent: intent(TRX, 999n) };
    await expect(verbs.sign(tampered, secret, [0])).rejects.toThrow(/does not pay its intent/);
    const swapped: UnsignedWithdrawal = {
      ...prepared,
      payload: {
        ...(prepared.payload as TronTxPayload),
        rawDataHex: Buffer.from(
          tronProtobuf.encodeRawTransaction(
            tronProtobuf.decodeRawTransaction(Buffer.from((prepared.payload as TronTxPayload).rawDataHex, 'hex')),
          ),
        )
          .toString('hex')
          .replace(/.{2}$/, '00'),
      },
    };
    await expect(verbs.sign(swapped, secret, [0])).rejects.toThrow(/does not match its own fields/);
    await expect(verbs.sign(prepared, secret, [1])).rejects.toThrow(/does not control the source/);
  });
});
