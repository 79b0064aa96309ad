import { type AssetRef, BaseError, type UnsignedWithdrawal, type WithdrawalIntent, openWalletSecret } from '@walletd/core';
import { FEE_CAP_DROPS, LEDGER_WINDOW, type XrpPayload, type XrpReader, createXrpPlugin } from '@walletd/plugin-xrp';
import { type RecordedRippled, XRP_RESERVE_BASE, startRecordedRippled, nativeAsset } from '@walletd/test-harness';
import { Wallet, decode, hashes, verifySignature } from 'xrpl';

/**
 * XRP withdrawals through the five verbs, the reader being the real xrpl client against the
 * recorded-response rippled server. Every transaction the plugin builds and signs is verified
 * offline with xrpl (decode, signature, hash, fields). What this cannot prove: that rippled would
 * apply it (no consensus, no paths; the server models sequences, fees, the reserve and
 * LastLedgerSequence only).
 */
describe('XRP withdrawals on the recorded-response server', () => {
  const plugin = createXrpPlugin();
  const verbs = plugin.withdrawals!;
  const secret = openWalletSecret(Buffer.from('legal winner thank year wave sausage worth useful legal winner thank yellow'));
  const source = plugin.deriveAddress('xrp', 'localnet', secret, 0).address;
  const XRP = nativeAsset('xrp', 'localnet');
  const ISSUER = 'rvYAfWj5gh67oV6fW32ZzP3Aw4Eubs59B';
  const USD: AssetRef = { key: `xrp:localnet:USD.${ISSUER}`, symbol: 'USD', decimals: 6, contractAddress: `USD.${ISSUER}` };
  const EXCHANGE = 'rNxp4h8apvRis6mJf9Sh8C6iRxfrDWN7AV';
  const NEW_ACCOUNT = 'rxRpSNb1VktvzBz8JF2oJC6qaww6RZ7Lw';
  let node: RecordedRippled;
  let reader: XrpReader;

  beforeEach(async () => {
    node = await startRecordedRippled();
    node.fund(source, 50_000_000n);
    node.fund(EXCHANGE, 30_000_000n);
    node.close();
    reader = plugin.createReader('xrp', 'localnet', { rpcUrl: node.url, retries: 0 });
  });
  afterEach(async () => {
    await reader.close?.();
    await node.stop();
  });

  const intent = (o: Partial<WithdrawalIntent['outputs'][0]> & { amount: bigint }, asset: AssetRef = XRP): WithdrawalIntent => ({
    chain: 'xrp',
    network: 'localnet',
    asset,
    outputs: [{ to: EXCHANGE, ...o }],
    sources: [source],
  });
  const refusal = async (p: Promise<unknown>) => {
    const e = await p.then(
      () => null,
      (err) => err,
    );
    expect(e).toBeInstanceOf(BaseError);
    return e as BaseError;
  };

  it('builds, signs and verifies offline: decode, signature, hash, and every field equal to the intent', async () => {
    const prepared = await verbs.build(intent({ amount: 12_345_678n, destinationTag: 352660523, memo: 'payout 7' }), reader);
    const signed = await verbs.sign(prepared, secret, [0]);
    const tx = decode(signed.raw) as Record<string, unknown>;
    expect(verifySignature(signed.raw)).toBe(true);
    expect(hashes.hashSignedTx(signed.raw)).toBe(signed.txHash);
    const payload = prepared.payload as XrpPayload;
    expect(tx).toMatchObject({
      TransactionType: 'Payment',
      Account: source,
      Destination: EXCHANGE,
      DestinationTag: 352660523,
      Amount: '12345678',
      Fee: '12',
      Sequence: payload.tx.Sequence,
      LastLedgerSequence: node.validated + LEDGER_WINDOW,
    });
    expect(tx.Flags ?? 0).toBe(0);
    expect(tx.SendMax).toBeUndefined();
    const memo = (tx.Memos as { Memo: { MemoData: string; MemoType: string } }[])[0]?.Memo;
    expect(Buffer.from(memo?.MemoData ?? '', 'hex').toString('utf8')).toBe('payout 7');
    expect(Buffer.from(memo?.MemoType ?? '', 'hex').toString('utf8')).toBe('text/plain');
    expect(prepared.fee).toBe(12n);
    expect(prepared.expiresAt).toEqual({ height: BigInt(node.validated + LEDGER_WINDOW) });

    await verbs.broadcast(signed, reader);
    // In the open ledger only: not found by \`tx\` yet, so "missing" (the service re-sends the same bytes: a no-op, tefALREADY).
    expect(await verbs.verify(prepared, signed.txHash, reader)).toMatchObject({ status: 'missing' });
    await verbs.broadcast(signed, reader);
    node.close();
    const verdict = await verbs.verify(prepared, signed.txHash, reader);
    expect(verdict).toEqual({ status: 'confirmed', confirmations: 1, fee: 12n, blockNumber: BigInt(node.validated) });
    // The same bytes again (a retry after a crash): the node answers tefPAST_SEQ and the ledger has the hash.
    await verbs.broadcast(signed, reader);
    expect(node.accounts.get(EXCHANGE)?.balance).toBe(30_000_000n + 12_345_678n);
  });

  it('r…:tag and X-address destinations carry their tag; a conflicting destinationTag is refused', async () => {
    const viaColon = await verbs.build(
      { ...intent({ amount: 1_000_000n }), outputs: [{ to: `${EXCHANGE}:77`, amount: 1_000_000n }] },
      reader,
    );
    expect((viaColon.payload as XrpPayload).tx.DestinationTag).toBe(77);
    const { classicAddressToXAddress } = require('xrpl') as typeof import('xrpl');
    const x = classicAddressToXAddress(EXCHANGE, 78, true);
    const viaX = await verbs.build({ ...intent({ amount: 1_000_000n }), outputs: [{ to: x, amount: 1_000_000n }] }, reader);
    expect((viaX.payload as XrpPayload).tx).toMatchObject({ Destination: EXCHANGE, DestinationTag: 78 });
    expect((await refusal(verbs.build(intent({ to: `${EXCHANGE}:77`, amount: 1n, destinationTag: 5 }), reader))).code).toBe(
      'validation_failed',
    );
    // A mainnet X-address is not a localnet address.
    expect(plugin.validateAddress('xrp', 'localnet', classicAddressToXAddress(EXCHANGE, 1, false))).toBe(false);
    expect(plugin.validateAddress('xrp', 'mainnet', classicAddressToXAddress(EXCHANGE, 1, false))).toBe(true);
  });

  it('keeps the reserve out of spendable and refuses what it cannot pay, naming it', async () => {
    // 50 XRP held, 1 XRP base reserve: 49 XRP minus the fee spendable.
    expect(await reader.getBalance(source, XRP)).toEqual({ total: 50_000_000n, spendable: 49_000_000n });
    const e = await refusal(verbs.build(intent({ amount: 49_000_000n }), reader));
    expect(e.code).toBe('insufficient_funds');
    expect(e.message).toMatch(/reserve/);
    await expect(verbs.build(intent({ amount: 49_000_000n - 12n }), reader)).resolves.toBeDefined();
  });

  it('refuses paying an unfunded account less than the base reserve (422), and pays one that much', async () => {
    const e = await refusal(
      verbs.build({ ...intent({ amount: XRP_RESERVE_BASE - 1n }), outputs: [{ to: NEW_ACCOUNT, amount: XRP_RESERVE_BASE - 1n }] }, reader),
    );
    expect([e.code, e.message]).toEqual(['unprocessable', expect.stringMatching(/no account on the ledger.*base reserve, 1 XRP/)]);
    const ok = await verbs.build(
      { ...intent({ amount: XRP_RESERVE_BASE }), outputs: [{ to: NEW_ACCOUNT, amount: XRP_RESERVE_BASE }] },
      reader,
    );
    const signed = await verbs.sign(ok, secret, [0]);
    await verbs.broadcast(signed, reader);
    node.close();
    expect(await verbs.verify(ok, signed.txHash, reader)).toMatchObject({ status: 'confirmed' });
  });

  it('refuses a destination that requires a tag when none is given', async () => {
    node.fund(EXCHANGE, 0n, { flags: 0x00020000 });
    node.close();
    const e = await refusal(verbs.build(intent({ amount: 1_000_000n }), reader));
    expect([e.code, e.message]).toEqual(['validation_failed', expect.stringMatching(/requires a destination tag/)]);
    await expect(verbs.build(intent({ amount: 1_000_000n, destinationTag: 1 }), reader)).resolves.toBeDefined();
  });

  it('a tec result in a validated ledger is failed_on_chain with the fee it burned', async () => {
    // Built while the account could pay; it spends elsewhere before this one lands.
    const prepared = await verbs.build(intent({ amount: 40_000_000n }), reader);
    const drain = await verbs.build(intent({ amount: 30_000_000n }), reader, { inFlight: [prepared] });
    expect((drain.payload as XrpPayload).tx.Sequence).toBe((prepared.payload as XrpPayload).tx.Sequence + 1);
    // The drain goes first with the earlier sequence: swap so the 40 XRP one finds too little.
    const first = await verbs.build(intent({ amount: 30_000_000n }), reader);
    const second = await verbs.build(intent({ amount: 40_000_000n }), reader, { inFlight: [first] });
    const s1 = await verbs.sign(first, secret, [0]);
    const s2 = await verbs.sign(second, secret, [0]);
    await verbs.broadcast(s1, reader);
    await verbs.broadcast(s2, reader);
    node.close();
    expect(await verbs.verify(first, s1.txHash, reader)).toMatchObject({ status: 'confirmed', fee: 12n });
    expect(await verbs.verify(second, s2.txHash, reader)).toMatchObject({ status: 'rejected', reason: 'failed_on_chain', fee: 12n });
  });

  it('past LastLedgerSequence without the transaction: rejected expired (never re-sent); before it: missing', async () => {
    const prepared = await verbs.build(intent({ amount: 1_000_000n }), reader);
    const signed = await verbs.sign(prepared, secret, [0]);
    expect(await verbs.verify(prepared, signed.txHash, reader)).toMatchObject({ status: 'missing' });
    for (let i = 0; i <= LEDGER_WINDOW; i++) node.close();
    expect(await verbs.verify(prepared, signed.txHash, reader)).toEqual({ status: 'rejected', confirmations: 0, reason: 'expired' });
    // Sent now, the node refuses it as too late.
    expect((await refusal(verbs.broadcast(signed, reader))).message).toMatch(/tefMAX_LEDGER/);
  });

  it('checkSigned accepts a blob signed elsewhere only when it pays exactly the intent', async () => {
    const prepared = await verbs.build(intent({ amount: 2_000_000n, destinationTag: 9 }), reader);
    const wallet = Wallet.fromMnemonic('legal winner thank year wave sausage worth useful legal winner thank yellow');
    expect(wallet.classicAddress).toBe(source);
    const tx = (prepared.payload as XrpPayload).tx;
    const sign = (fields: Record<string, unknown>) => wallet.sign({ ...tx, ...fields } as never).tx_blob;
    const ok = verbs.checkSigned(prepared, sign({}), prepared);
    expect(ok.fee).toBe(12n);
    expect(ok.expiresAt).toEqual({ height: BigInt(tx.LastLedgerSequence) });
    const refuse = (raw: string, what: RegExp) => {
      let caught: unknown;
      try {
        verbs.checkSigned(prepared, raw, prepared);
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(BaseError);
      expect((caught as Error).message).toMatch(what);
    };
    refuse(sign({ Flags: 0x00020000 }), /partial-payment/);
    refuse(sign({ DestinationTag: 10 }), /destination tag/);
    refuse(sign({ Amount: '2000001' }), /another amount/);
    refuse(sign({ Destination: NEW_ACCOUNT }), /pays rxRp/);
    refuse(sign({ SendMax: '3000000' }), /SendMax/);
    refuse(sign({ LastLedgerSequence: undefined }), /LastLedgerSequence/);
    refuse(sign({ Fee: String(FEE_CAP_DROPS + 1n) }), /above the cap/);
    const other = Wallet.fromMnemonic('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about');
    refuse(other.sign({ ...tx } as never).tx_blob, /does not control/);
    refuse('00AB', /not an XRP Ledger transaction/);
  });

  it('withdraws an allow-listed issued currency from its trust line', async () => {
    node.trust(source, 'USD', ISSUER, '100');
    node.trust(EXCHANGE, 'USD', ISSUER, '0');
    node.close();
    expect(await reader.getBalance(source, USD)).toEqual({ total: 100_000_000n, spendable: 100_000_000n });
    const e = await refusal(verbs.build(intent({ amount: 100_000_001n }, USD), reader));
    expect(e.code).toBe('insufficient_funds');
    const prepared = await verbs.build(intent({ amount: 12_500_000n }, USD), reader);
    expect((prepared.payload as XrpPayload).tx.Amount).toEqual({ currency: 'USD', issuer: ISSUER, value: '12.5' });
    const signed = await verbs.sign(prepared, secret, [0]);
    await verbs.broadcast(signed, reader);
    node.close();
    expect(await verbs.verify(prepared, signed.txHash, reader)).toMatchObject({ status: 'confirmed', fee: 12n });
    expect(await reader.getBalance(EXCHANGE, USD)).toEqual({ total: 12_500_000n, spendable: 12_500_000n });
  });

  it('unsigned payloads survive JSON (the service stores them as JSON)', async () => {
    const prepared = await verbs.build(intent({ amount: 1_000_000n }), reader);
    const stored: UnsignedWithdrawal = {
      ...JSON.parse(JSON.stringify({ ...prepared, fee: undefined, expiresAt: undefined, intent: undefined })),
      intent: prepared.intent,
      fee: prepared.fee,
    };
    const signed = await verbs.sign(stored, secret, [0]);
    expect(verifySignature(signed.raw)).toBe(true);
  });
});
