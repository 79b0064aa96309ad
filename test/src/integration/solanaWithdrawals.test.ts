import { getTransactionDecoder } from '@solana/kit';
import { TOKEN_PROGRAM_ADDRESS, findAssociatedTokenPda } from '@solana-program/token';
import { type AssetRef, BaseError, type UnsignedWithdrawal, type WithdrawalIntent, openWalletSecret } from '@walletd/core';
import {
  type SolanaReader,
  type SolanaTxPayload,
  TOKEN_2022_PROGRAM,
  associatedTokenAccount,
  createSolanaPlugin,
  detect,
  summarizeMessage,
} from '@walletd/plugin-solana';
import { type SolanaSvmNode, startSolanaSvm, nativeAsset } from '@walletd/test-harness';

const ata = async (owner: string, mint: string) =>
  (await findAssociatedTokenPda({ owner: owner as never, mint: mint as never, tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0] as string;
const tokenAmount = (node: SolanaSvmNode, account: string): bigint => {
  const acc = node.svm.getAccount(account as never);
  if (!acc.exists) return -1n;
  return new DataView(acc.data.buffer, acc.data.byteOffset + 64, 8).getBigUint64(0, true);
};
const lamports = (node: SolanaSvmNode, a: string): bigint => node.svm.getBalance(a as never) ?? 0n;

/**
 * Every withdrawal here is executed by litesvm (the real SVM with the system, SPL Token and
 * associated-token programs) behind the JSON-RPC adapter; balances are read from the engine.
 */
describe('Solana withdrawals executed by litesvm', () => {
  const plugin = createSolanaPlugin();
  const verbs = plugin.withdrawals as NonNullable<typeof plugin.withdrawals>;
  const secret = openWalletSecret(
    Buffer.from('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'),
  );
  const primary = plugin.deriveAddress('solana', 'localnet', secret, 0).address;
  const deposit = plugin.deriveAddress('solana', 'localnet', secret, 3).address;
  const recipient = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
  let node: SolanaSvmNode;
  let reader: SolanaReader;
  let mint: string;
  let usdc: AssetRef;
  const sol = nativeAsset('solana', 'localnet');
  const intent = (asset: AssetRef, amount: bigint, sources: string[], to = recipient): WithdrawalIntent => ({
    chain: 'solana',
    network: 'localnet',
    asset,
    outputs: [{ to, amount }],
    sources,
  });
  const payload = (u: UnsignedWithdrawal) => u.payload as SolanaTxPayload;
  const rent0 = () => node.svm.minimumBalanceForRentExemption(0n);

  beforeAll(async () => {
    node = await startSolanaSvm({ priorityFee: 2_000n });
    reader = plugin.createReader('solana', 'localnet', { rpcUrl: node.url });
    mint = await node.createMint(6);
    usdc = { key: `solana:localnet:${mint}`, symbol: 'USDC', decimals: 6, contractAddress: mint };
    await node.sendSol(primary, 5_000_000_000n);
    await node.mintTo(mint, deposit, 50_000_000n, 6); // the deposit address holds tokens and no SOL
  });
  afterAll(async () => {
    await reader?.close?.();
    await node?.close();
  });

  it('pays SOL: the engine moves exactly the amount, the fee verify reports is what the source lost beyond it, within the bound', async () => {
    const before = lamports(node, primary);
    const u = await verbs.build(intent(sol, 1_500_000_000n, [primary]), reader);
    expect(u.sourceAddresses).toEqual([primary]);
    expect(payload(u).computeUnitPrice).toBe('2000'); // the recent priority fee
    const signed = await verbs.sign(u, secret, [0]);
    await verbs.broadcast(signed, reader);
    const verdict = await verbs.verify(u, signed.txHash, reader);
    expect(verdict).toMatchObject({ status: 'confirmed' });
    expect(lamports(node, recipient)).toBe(1_500_000_000n);
    expect(before - lamports(node, primary)).toBe(1_500_000_000n + (verdict.fee as bigint));
    expect(verdict.fee).toBe(5_000n + 2n); // a signature plus 1000 CU at 2000 micro-lamports
    expect(verdict.fee as bigint).toBeLessThanOrEqual(u.fee);
    const balance = await reader.getBalance(primary, sol);
    expect(balance).toEqual({ total: lamports(node, primary), spendable: lamports(node, primary) - rent0() });
  });

  it('pays a token from a deposit address with no SOL: the primary address pays the fee and the new ATA rent, both sign, fee exact', async () => {
    const primaryBefore = lamports(node, primary);
    const u = await verbs.build(intent(usdc, 12_345_678n, [deposit, primary]), reader);
    const p = payload(u);
    expect(u.sourceAddresses).toEqual([deposit, primary]);
    expect(p).toMatchObject({ kind: 'token', feePayer: primary, source: deposit, recipientTokenAccount: await ata(recipient, mint) });
    expect(BigInt(p.accountRent)).toBe(node.svm.minimumBalanceForRentExemption(165n));
    const summary = summarizeMessage(new Uint8Array(Buffer.from(p.message, 'base64')));
    expect(summary.signers).toEqual([primary, deposit]);
    expect(summary.createsAccount).toMatchObject({ owner: recipient, mint });
    const signed = await verbs.sign(u, secret, [3, 0]);
    expect(verbs.checkSigned(u, signed.raw, u).signed.txHash).toBe(signed.txHash);
    await verbs.broadcast(signed, reader);
    const verdict = await verbs.verify(u, signed.txHash, reader);
    expect(verdict).toMatchObject({ status: 'confirmed' });
    expect(tokenAmount(node, await ata(recipient, mint))).toBe(12_345_678n);
    expect(tokenAmount(node, await ata(deposit, mint))).toBe(50_000_000n - 12_345_678n);
    expect(lamports(node, deposit)).toBe(0n);
    // What the primary lost is the reported fee: meta.fee (two signatures + priority) plus the rent it put in the ATA.
    expect(primaryBefore - lamports(node, primary)).toBe(verdict.fee);
    expect(verdict.fee).toBe(10_000n + BigInt(p.accountRent) + (45_000n * 2_000n + 999_999n) / 1_000_000n);
    expect(verdict.fee as bigint).toBeLessThanOrEqual(u.fee);
    // The next one finds the ATA: nothing created, no rent.
    const again = await verbs.build(intent(usdc, 1n, [deposit, primary]), reader);
    expect(payload(again).accountRent).toBe('0');
    expect(await reader.getBalance(deposit, usdc)).toEqual({ total: 50_000_000n - 12_345_678n, spendable: 50_000_000n - 12_345_678n });
  });

  it('refuses what cannot be paid: over the balance, below the rent-exempt minimum, no SOL for the fee anywhere', async () => {
    const code = async (p: Promise<unknown>) => {
      try {
        await p;
      } catch (e) {
        return e instanceof BaseError ? e.code : String(e);
      }
      return 'accepted';
    };
    const all = lamports(node, primary);
    expect(await code(verbs.build(intent(sol, all, [primary]), reader))).toBe('insufficient_funds');
    // Leaving less than the source's rent-exempt minimum is refused too.
    expect(await code(verbs.build(intent(sol, all - rent0(), [primary]), reader))).toBe('insufficient_funds');
    // A new recipient account must receive its own minimum.
    expect(await code(verbs.build(intent(sol, 1_000n, [primary], 'GdnSyH3YtwcxFvQrVVJMm1JhTS4QVX7MFsX56uJLUfiZ'), reader))).toBe(
      'invalid_amount',
    );
    expect(await code(verbs.build(intent(usdc, 10n ** 12n, [deposit, primary]), reader))).toBe('insufficient_funds');
    expect(await code(verbs.build(intent(usdc, 1n, [deposit]), reader))).toBe('insufficient_funds');
  });

  it('an overspend signed before the funds left fails with its instruction error: refused at broadcast, failed_on_chain when executed', async () => {
    const u = await verbs.build(intent(sol, 1_000_000_000n, [primary]), reader);
    const signed = await verbs.sign(u, secret, [0]);
    // The funds leave first (another payment from the same address).
    const drain = await verbs.build(intent(sol, lamports(node, primary) - 500_000_000n, [primary]), reader);
    const drained = await verbs.sign(drain, secret, [0]);
    await verbs.broadcast(drained, reader);
    let refused: unknown;
    try {
      await verbs.broadcast(signed, reader);
    } catch (e) {
      refused = e;
    }
    expect(refused).toBeInstanceOf(BaseError);
    expect((refused as BaseError).code).toBe('insufficient_funds');
    // Sent without preflight, the engine executes it and fails it at the transfer: the fee is charged.
    const before = lamports(node, primary);
    const run = node.execute(getTransactionDecoder().decode(new Uint8Array(Buffer.from(signed.raw, 'base64'))));
    expect(run.err).not.toBeNull();
    const verdict = await verbs.verify(u, signed.txHash, reader);
    expect(verdict).toMatchObject({ status: 'rejected', reason: 'failed_on_chain', blockNumber: run.slot });
    expect(before - lamports(node, primary)).toBe(verdict.fee);
    await node.sendSol(primary, 5_000_000_001n);
  });

  it('expires: past lastValidBlockHeight the node refuses it and verify answers rejected/expired, never before', async () => {
    // (Another amount than above: the adapter keeps one blockhash for 150 blocks, where two equal
    // payments would be one transaction; a cluster's blockhash changes every slot.)
    const u = await verbs.build(intent(sol, 1_000_000_003n, [primary]), reader);
    const signed = await verbs.sign(u, secret, [0]);
    expect(await verbs.verify(u, signed.txHash, reader)).toMatchObject({ status: 'missing' });
    const limit = BigInt(payload(u).lastValidBlockHeight);
    // expiresAt is a slot no later than the one at which the block height can pass the limit.
    expect(u.expiresAt?.height).toBe(node.slot + (limit - node.blockHeight));
    node.produceBlocks(Number(limit - node.blockHeight));
    expect(await verbs.verify(u, signed.txHash, reader)).toMatchObject({ status: 'missing' }); // at the limit: still valid
    node.produceBlocks(1);
    expect(await verbs.verify(u, signed.txHash, reader)).toMatchObject({ status: 'rejected', reason: 'expired' });
    let refused: unknown;
    try {
      await verbs.broadcast(signed, reader);
    } catch (e) {
      refused = e;
    }
    expect((refused as BaseError).code).toBe('conflict');
    expect((refused as BaseError).message).toMatch(/expired/);
  });

  it('checkSigned refuses a transaction that pays another amount, recipient or fee payer, carries more, or is badly signed', async () => {
    const u = await verbs.build(intent(usdc, 1_000n, [deposit, primary]), reader);
    const signed = await verbs.sign(u, secret, [3, 0]);
    const refusal = (prepared: UnsignedWithdrawal, raw: string) => {
      try {
        verbs.checkSigned(prepared, raw, prepared);
      } catch (e) {
        return (e as BaseError).message;
      }
      return 'accepted';
    };
    expect(refusal(u, signed.raw)).toBe('accepted');
    expect(refusal(await verbs.build(intent(usdc, 1_001n, [deposit, primary]), reader), signed.raw)).toMatch(
      /pays 1000 base units instead of 1001/,
    );
    expect(
      refusal(
        await verbs.build(intent(usdc, 1_000n, [deposit, primary], 'GdnSyH3YtwcxFvQrVVJMm1JhTS4QVX7MFsX56uJLUfiZ'), reader),
        signed.raw,
      ),
    ).toMatch(/pays .* instead of/);
    expect(refusal(await verbs.build(intent(sol, 1_000n, [primary]), reader), signed.raw)).toMatch(/moves token/);
    // One signature byte changed.
    const bytes = Buffer.from(signed.raw, 'base64');
    bytes[5] = (bytes[5] as number) ^ 1;
    expect(refusal(u, bytes.toString('base64'))).toMatch(/signature of .* is not valid/);
    expect(refusal(u, 'not a transaction')).toMatch(/not a base64 wire-format Solana transaction/);
  });

  it('never builds the message of a withdrawal in flight (two equal payments in one blockhash would be one transaction)', async () => {
    const first = await verbs.build(intent(sol, 1_000_000_007n, [primary]), reader);
    expect((await verbs.build(intent(sol, 1_000_000_007n, [primary]), reader)).payload).toEqual(first.payload);
    const second = await verbs.build(intent(sol, 1_000_000_007n, [primary]), reader, { inFlight: [first] });
    expect(payload(second).message).not.toBe(payload(first).message);
    expect(payload(second).computeUnitLimit).toBe(payload(first).computeUnitLimit + 1);
    const a = await verbs.sign(first, secret, [0]);
    const b = await verbs.sign(second, secret, [0]);
    await verbs.broadcast(a, reader);
    await verbs.broadcast(b, reader);
    expect(a.txHash).not.toBe(b.txHash);
    expect(await verbs.verify(first, a.txHash, reader)).toMatchObject({ status: 'confirmed' });
    expect(await verbs.verify(second, b.txHash, reader)).toMatchObject({ status: 'confirmed' });
  });

  it('Token-2022: a mint listed with its program is credited and paid under it, and under no other', async () => {
    const t22 = await node.createMint(6, TOKEN_2022_PROGRAM);
    await node.mintTo(t22, deposit, 9_000_000n, 6, TOKEN_2022_PROGRAM);
    const depositAta = await associatedTokenAccount(deposit, t22, TOKEN_2022_PROGRAM);
    expect(depositAta).not.toBe(await ata(deposit, t22));
    // The block the engine made for the mint, read through the plugin's reader.
    const raw = (await reader.fetchBlock(node.slot)) as Uint8Array;
    const ctx = (contract: string) => ({
      chain: 'solana' as const,
      network: 'localnet',
      native: sol,
      tokens: new Map([[t22, { key: `solana:localnet:${t22}`, symbol: 'T22', decimals: 6, contractAddress: contract, matchKey: t22 }]]),
      watched: { has: (k: string) => k === deposit || k === depositAta },
    });
    expect(detect(raw, ctx(`token-2022:${t22}`)).transfers.map((t) => [t.toKey, t.amount])).toEqual([[depositAta, 9_000_000n]]);
    expect(detect(raw, ctx(t22)).transfers).toEqual([]);

    const asset: AssetRef = { key: `solana:localnet:${t22}`, symbol: 'T22', decimals: 6, contractAddress: `token-2022:${t22}` };
    const primaryBefore = lamports(node, primary);
    const u = await verbs.build(intent(asset, 4_000_000n, [deposit, primary]), reader);
    expect(payload(u)).toMatchObject({ tokenProgram: TOKEN_2022_PROGRAM, sourceTokenAccount: depositAta });
    const signed = await verbs.sign(u, secret, [3, 0]);
    await verbs.broadcast(signed, reader);
    const verdict = await verbs.verify(u, signed.txHash, reader);
    expect(verdict).toMatchObject({ status: 'confirmed' });
    expect(tokenAmount(node, await associatedTokenAccount(recipient, t22, TOKEN_2022_PROGRAM))).toBe(4_000_000n);
    expect(primaryBefore - lamports(node, primary)).toBe(verdict.fee);
    expect(verdict.fee as bigint).toBeLessThanOrEqual(u.fee);
    expect(await reader.getBalance(deposit, asset)).toEqual({ total: 5_000_000n, spendable: 5_000_000n });
  });
});
