import { type AssetRef, BaseError, mnemonicToSeed, openWalletSecret } from '@walletd/core';
import { createEvmPlugin, createEvmReader, deriveEvmAddress, type EvmTxPayload } from '@walletd/plugin-evm';
import { type Anvil, deployTestToken, startAnvil, type TestToken, nativeAsset } from '@walletd/test-harness';

/** The EVM plugin's withdrawal verbs against a real node: build, sign, broadcast, verify. */
describe('EVM withdrawal verbs on anvil', () => {
  let anvil: Anvil;
  let usdc: TestToken;
  const plugin = createEvmPlugin();
  const verbs = plugin.withdrawals!;
  const phrase = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
  const seed = mnemonicToSeed(phrase);
  const secret = openWalletSecret(Buffer.from(phrase));
  const source = deriveEvmAddress(seed, 0).address;
  const recipient = '0x000000000000000000000000000000000000dEaD';
  let usdcAsset: AssetRef;
  const eth = nativeAsset('ethereum', 'devnet');
  const reader = () => createEvmReader({ rpcUrl: anvil.url });
  const balance = async (address: string) => BigInt(await anvil.rpc<string>('eth_getBalance', [address, 'latest']));
  const intent = (asset: AssetRef, amount: bigint) => ({
    chain: 'ethereum' as const,
    network: 'devnet',
    asset,
    outputs: [{ to: recipient, amount }],
    sources: [source],
  });

  beforeAll(async () => {
    anvil = await startAnvil();
    usdc = await deployTestToken(anvil, 'USD Coin', 'USDC', 6);
    usdcAsset = { key: `ethereum:devnet:${usdc.address.toLowerCase()}`, symbol: 'USDC', decimals: 6, contractAddress: usdc.address };
    await anvil.send(source, 2n * 10n ** 18n);
    await usdc.mint(source, 100_000_000n);
  });
  afterAll(async () => {
    await anvil.stop();
  });

  it('pays native ETH exactly and reports the on-chain fee', async () => {
    const before = await balance(recipient);
    const sourceBefore = await balance(source);
    const unsigned = await verbs.build(intent(eth, 500_000_000_000_000_001n), reader());
    expect(unsigned.sourceAddresses).toEqual([source]);
    const signed = await verbs.sign(unsigned, secret, [0]);
    await verbs.broadcast(signed, reader());
    await anvil.receipt(signed.txHash);
    const verdict = await verbs.verify(unsigned, signed.txHash, reader());
    expect(verdict.status).toBe('confirmed');
    expect(verdict.confirmations).toBeGreaterThanOrEqual(1);
    expect((await balance(recipient)) - before).toBe(500_000_000_000_000_001n);
    // The source paid exactly amount + the fee verify reports, and that fee is within the estimate.
    expect(sourceBefore - (await balance(source))).toBe(500_000_000_000_000_001n + (verdict.fee as bigint));
    expect(verdict.fee as bigint).toBeLessThanOrEqual(unsigned.fee);
  });

  it('pays an ERC-20 and confirms only on the matching Transfer log', async () => {
    const unsigned = await verbs.build(intent(usdcAsset, 12_345_678n), reader());
    const signed = await verbs.sign(unsigned, secret, [0]);
    await verbs.broadcast(signed, reader());
    await anvil.receipt(signed.txHash);
    expect((await verbs.verify(unsigned, signed.txHash, reader())).status).toBe('confirmed');
    // The same receipt judged against another amount or recipient: no matching log, never "paid".
    const otherAmount = { ...unsigned, intent: intent(usdcAsset, 12_345_679n) };
    const mined = BigInt((await anvil.receipt(signed.txHash)).blockNumber);
    expect(await verbs.verify(otherAmount, signed.txHash, reader())).toEqual({ status: 'pending', confirmations: 0, blockNumber: mined });
    const otherTo = {
      ...unsigned,
      intent: { ...intent(usdcAsset, 12_345_678n), outputs: [{ to: '0x1111111111111111111111111111111111111111', amount: 12_345_678n }] },
    };
    expect((await verbs.verify(otherTo, signed.txHash, reader())).status).toBe('pending');
  });

  it('reports a reverted transaction as rejected, failed_on_chain, with its fee', async () => {
    const unsigned = await verbs.build(intent(usdcAsset, 1n), reader());
    const p = unsigned.payload as EvmTxPayload;
    // Same transaction, but asking for more tokens than the source holds: mined, reverted.
    const reverting = {
      ...unsigned,
      payload: {
        ...p,
        data: `0xa9059cbb${'0'.repeat(24)}${recipient.slice(2).toLowerCase()}${(10n ** 30n).toString(16).padStart(64, '0')}`,
      },
    };
    const signed = await verbs.sign(reverting, secret, [0]);
    await verbs.broadcast(signed, reader());
    expect((await anvil.receipt(signed.txHash)).status).toBe('0x0');
    const verdict = await verbs.verify(reverting, signed.txHash, reader());
    expect(verdict).toMatchObject({ status: 'rejected', reason: 'failed_on_chain' });
    expect(verdict.fee).toBeGreaterThan(0n);
  });

  it('maps node refusals to typed errors and refuses a key that does not own the source', async () => {
    const tooMuch = verbs.build(intent(eth, 10n ** 24n), reader());
    await expect(tooMuch).rejects.toBeInstanceOf(BaseError);
    await expect(verbs.build(intent(eth, 10n ** 24n), reader())).rejects.toMatchObject({ code: 'insufficient_funds' });
    const unsigned = await verbs.build(intent(eth, 1n), reader());
    const signed = await verbs.sign(unsigned, secret, [0]);
    await verbs.broadcast(signed, reader());
    await anvil.receipt(signed.txHash);
    // Sending the same signed transaction again (a retry after a crash) is a no-op: it is mined.
    await expect(verbs.broadcast(signed, reader())).resolves.toBeUndefined();
    // Another transaction on the spent nonce is a conflict.
    const rival = await verbs.sign({ ...unsigned, payload: { ...(unsigned.payload as EvmTxPayload), value: '2' } }, secret, [0]);
    await expect(verbs.broadcast(rival, reader())).rejects.toMatchObject({ code: 'conflict' });
    await expect(verbs.sign(unsigned, secret, [1])).rejects.toThrow(/does not control the source address/);
  });

  it('tells a transaction the node never saw (missing, safe to send again) from one whose nonce went elsewhere', async () => {
    const first = await verbs.build(intent(eth, 1n), reader());
    const unsent = await verbs.sign(first, secret, [0]);
    expect(await verbs.verify(first, unsent.txHash, reader())).toEqual({ status: 'missing', confirmations: 0 });
    // Another transaction with the same nonce lands: the first can never be mined.
    const rival = await verbs.sign(
      { ...first, intent: intent(eth, 2n), payload: { ...(first.payload as EvmTxPayload), value: '2' } },
      secret,
      [0],
    );
    await verbs.broadcast(rival, reader());
    await anvil.receipt(rival.txHash);
    expect(await verbs.verify(first, unsent.txHash, reader())).toEqual({ status: 'rejected', confirmations: 0, reason: 'mempool_dropped' });
    // Had it been seen in a block before, its disappearance is a reorg.
    expect(await verbs.verify(first, unsent.txHash, reader(), { seenInBlock: true })).toMatchObject({
      status: 'rejected',
      reason: 'reorg',
    });
  });

  it('builds after the nonces of in-flight withdrawals from the same source', async () => {
    const a = await verbs.build(intent(eth, 1n), reader());
    const b = await verbs.build(intent(eth, 1n), reader(), { inFlight: [a] });
    expect((b.payload as EvmTxPayload).nonce).toBe((a.payload as EvmTxPayload).nonce + 1);
    const other = { ...a, sourceAddresses: ['0x1111111111111111111111111111111111111111'] };
    const c = await verbs.build(intent(eth, 1n), reader(), { inFlight: [other] });
    expect((c.payload as EvmTxPayload).nonce).toBe((a.payload as EvmTxPayload).nonce);
  });
});
