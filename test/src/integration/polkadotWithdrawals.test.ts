import { hexToU8a, u8aToHex } from '@polkadot/util';
import { type AssetRef, BaseError, type WithdrawalIntent, createLogger, openWalletSecret, storedUnsigned } from '@walletd/core';
import { trackWithdrawals } from '@walletd/indexer';
import { type PolkadotPayload, type PolkadotReader, createPolkadotPlugin } from '@walletd/plugin-polkadot';
import { type Chopsticks, createTestDatabase, seedCompany, startChopsticks, startRpcProxy, nativeAsset } from '@walletd/test-harness';

const ROC = 10n ** 12n;
/** The storage key of System.Events (twox128("System") ++ twox128("Events")). */
const SYSTEM_EVENTS = '0x26aa394eea5630e07c48ae0c9558cef780d41e5e16056765bc8461851072c9d7';
const USDT = 1984;

/**
 * Withdrawals executed by the Rococo Asset Hub runtime under chopsticks: the runtime checks the
 * signature, nonce, era and fee; balances are read back with polkadot.js. The node's answers to a
 * bad signature and to a sender that cannot pay are the node's own (`author_submitExtrinsic`).
 */
describe('Polkadot withdrawals executed by a real runtime (chopsticks)', () => {
  const plugin = createPolkadotPlugin();
  const verbs = plugin.withdrawals as NonNullable<typeof plugin.withdrawals>;
  const secret = openWalletSecret(
    Buffer.from('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'),
  );
  const address = (i: number) => plugin.deriveAddress('polkadot', 'localnet', secret, i).address;
  const primary = address(0);
  let node: Chopsticks;
  let reader: PolkadotReader;
  let bob: string;
  const roc = nativeAsset('polkadot', 'localnet');
  const usdt: AssetRef = { key: `polkadot:localnet:${USDT}`, symbol: 'USDT', decimals: 6, contractAddress: String(USDT) };
  const intent = (asset: AssetRef, amount: bigint, source = primary, to = bob): WithdrawalIntent => ({
    chain: 'polkadot',
    network: 'localnet',
    asset,
    outputs: [{ to, amount }],
    sources: [source],
  });
  const free = async (who: string) => (await node.api.query.system.account(who)).data.free.toBigInt();
  const assetOf = async (who: string) => {
    const a = await node.api.query.assets.account(USDT, who);
    return a.isSome ? a.unwrap().balance.toBigInt() : 0n;
  };
  const code = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (e) {
      return e instanceof BaseError ? e.code : String(e);
    }
    return 'accepted';
  };

  beforeAll(async () => {
    node = await startChopsticks();
    bob = node.keyring.addFromUri('//Bob').address;
    reader = plugin.createReader('polkadot', 'localnet', { rpcUrl: node.url });
    await node.fund(bob, ROC);
    await node.fund(primary, 100n * ROC);
    await node.createAsset(USDT, 1000n, 10n ** 12n);
    await node.newBlock([await node.sign(node.api.tx.assets.transferKeepAlive(USDT, primary, 50_000_000n))]);
  }, 180_000);
  afterAll(async () => {
    await node?.stop();
  });

  it('pays DOT with transferKeepAlive: the runtime moves exactly the amount, the fee verify reports is exactly what the source lost beyond it', async () => {
    const before = await free(primary);
    const bobBefore = await free(bob);
    const u = await verbs.build(intent(roc, 3n * ROC + 7n), reader);
    const p = u.payload as PolkadotPayload;
    expect(p.call.startsWith(u8aToHex(node.api.tx.balances.transferKeepAlive.callIndex))).toBe(true);
    expect(u.expiresAt?.height).toBe(BigInt(p.lastValidBlock));
    const signed = await verbs.sign(u, secret, [0]);
    // polkadot.js reads the signed bytes as the intended call, signer and mortal era.
    const decoded = node.api.createType('Extrinsic', signed.raw);
    // The signer is a MultiAddress::Id: one variant byte, then the account id.
    expect(u8aToHex(decoded.signer.toU8a().subarray(1))).toBe(plugin.matchKey('polkadot', 'localnet', primary));
    expect(`${decoded.method.section}.${decoded.method.method}`).toBe('balances.transferKeepAlive');
    expect(decoded.era.isMortalEra).toBe(true);
    expect(decoded.hash.toHex()).toBe(signed.txHash);
    expect(verbs.checkSigned(u, signed.raw, u).signed.txHash).toBe(signed.txHash);
    await verbs.broadcast(signed, reader);
    await verbs.broadcast(signed, reader); // the same bytes again: a no-op
    expect(await verbs.verify(u, signed.txHash, reader)).toMatchObject({ status: 'pending', confirmations: 0 });
    const block = await node.newBlock();
    const verdict = await verbs.verify(u, signed.txHash, reader);
    expect(verdict).toMatchObject({ status: 'confirmed', blockNumber: block, confirmations: 1 });
    expect((await free(bob)) - bobBefore).toBe(3n * ROC + 7n);
    // A retry after it landed: the node calls it outdated (its nonce is used); broadcast is a no-op and verify still says confirmed.
    await verbs.broadcast(signed, reader);
    expect(await verbs.verify(u, signed.txHash, reader)).toMatchObject({ status: 'confirmed' });
    expect(before - (await free(primary))).toBe(3n * ROC + 7n + (verdict.fee as bigint));
    expect(verdict.fee as bigint).toBeGreaterThan(0n);
    expect(verdict.fee as bigint).toBeLessThanOrEqual(u.fee);
    const ed = node.api.consts.balances.existentialDeposit.toBigInt();
    expect(await reader.getBalance(primary, roc)).toEqual({ total: await free(primary), spendable: (await free(primary)) - ed });
  }, 60_000);

  it('pays an allow-listed asset with assets.transferKeepAlive, fee exact in the native asset', async () => {
    const before = await free(primary);
    const u = await verbs.build(intent(usdt, 1_234_567n), reader);
    const signed = await verbs.sign(u, secret, [0]);
    await verbs.broadcast(signed, reader);
    await node.newBlock();
    const verdict = await verbs.verify(u, signed.txHash, reader);
    expect(verdict).toMatchObject({ status: 'confirmed' });
    expect(await assetOf(bob)).toBe(1_234_567n);
    expect(await assetOf(primary)).toBe(50_000_000n - 1_234_567n);
    expect(before - (await free(primary))).toBe(verdict.fee);
    expect(verdict.fee as bigint).toBeLessThanOrEqual(u.fee);
    expect(await reader.getBalance(primary, usdt)).toEqual({ total: 50_000_000n - 1_234_567n, spendable: 50_000_000n - 1_234_567n });
  }, 60_000);

  it('takes the nonce after the wallet in-flight withdrawals: two signed at once land in one block', async () => {
    const first = await verbs.build(intent(roc, ROC), reader);
    const second = await verbs.build(intent(roc, 2n * ROC), reader, { inFlight: [first] });
    expect((second.payload as PolkadotPayload).nonce).toBe((first.payload as PolkadotPayload).nonce + 1);
    const s1 = await verbs.sign(first, secret, [0]);
    const s2 = await verbs.sign(second, secret, [0]);
    await verbs.broadcast(s1, reader);
    await verbs.broadcast(s2, reader);
    await node.newBlock();
    expect(await verbs.verify(first, s1.txHash, reader)).toMatchObject({ status: 'confirmed' });
    expect(await verbs.verify(second, s2.txHash, reader)).toMatchObject({ status: 'confirmed' });
  }, 60_000);

  it('refuses what the runtime would refuse: over the spendable balance, a new account paid less than the existential deposit', async () => {
    const ed = node.api.consts.balances.existentialDeposit.toBigInt();
    expect(await code(verbs.build(intent(roc, await free(primary)), reader))).toBe('insufficient_funds');
    expect(await code(verbs.build(intent(usdt, 10n ** 9n), reader))).toBe('insufficient_funds');
    const fresh = node.keyring.addFromUri('//Fresh').address;
    const refused = verbs.build(intent(roc, ed - 1n, primary, fresh), reader);
    await expect(refused).rejects.toMatchObject({ code: 'unprocessable', status: 422 });
    await expect(refused).rejects.toThrow(/existential deposit/);
    expect(await code(verbs.build(intent(roc, ed, primary, fresh), reader))).toBe('accepted');
    // USDT is not a sufficient asset here: it cannot create the recipient's account, nor go below its min_balance.
    await expect(verbs.build(intent(usdt, 5_000n, primary, fresh), reader)).rejects.toMatchObject({
      code: 'unprocessable',
      message: /cannot create it/,
    });
    const charlie = node.keyring.addFromUri('//Charlie').address;
    await node.fund(charlie, ROC);
    await expect(verbs.build(intent(usdt, 999n, primary, charlie), reader)).rejects.toMatchObject({
      code: 'unprocessable',
      message: /minimum balance \(1000\)/,
    });
    expect(await code(verbs.build(intent(usdt, 1000n, primary, charlie), reader))).toBe('accepted');
  }, 60_000);

  it('a bad signature and an unfunded sender are refused by the node, each with its own code', async () => {
    const u = await verbs.build(intent(roc, ROC), reader);
    const signed = await verbs.sign(u, secret, [0]);
    const bytes = hexToU8a(signed.raw);
    const offset = (u.payload as PolkadotPayload).signatureOffset;
    bytes[offset] = (bytes[offset] as number) ^ 0xff;
    const forged = { raw: u8aToHex(bytes), txHash: signed.txHash };
    await expect(verbs.broadcast(forged, reader)).rejects.toMatchObject({ code: 'unprocessable', message: /bad signature/ });
    // checkSigned refuses the same forgery without asking the node.
    expect(() => verbs.checkSigned(u, forged.raw, u)).toThrow(/signature does not verify/);

    const poor = address(5);
    await node.fund(poor, 10n * ROC);
    const p = await verbs.build(intent(roc, ROC, poor), reader);
    const ps = await verbs.sign(p, secret, [5]);
    await node.fund(poor, 0n); // drained after signing
    await expect(verbs.broadcast(ps, reader)).rejects.toMatchObject({ code: 'insufficient_funds' });
  }, 60_000);

  it('past its mortal era a withdrawal never lands: verify answers rejected/expired and the node refuses the bytes', async () => {
    const u = await verbs.build(intent(roc, ROC), reader);
    const signed = await verbs.sign(u, secret, [0]);
    expect(await verbs.verify(u, signed.txHash, reader)).toMatchObject({ status: 'missing' });
    const last = u.expiresAt?.height as bigint;
    await node.rpc('dev_newBlock', [{ count: Number(last - (await node.head())) }]);
    expect(await node.head()).toBe(last);
    expect(await verbs.verify(u, signed.txHash, reader)).toMatchObject({ status: 'rejected', reason: 'expired' });
    await expect(verbs.broadcast(signed, reader)).rejects.toBeInstanceOf(BaseError);
  }, 120_000);

  it('a node that pruned the block state: the outcome is unknown, so the withdrawal stays broadcast with the reason in lastError, never failed_on_chain', async () => {
    const t = await createTestDatabase();
    try {
      const u = await verbs.build(intent(roc, ROC), reader);
      const signed = await verbs.sign(u, secret, [0]);
      await verbs.broadcast(signed, reader);
      const block = await node.newBlock();
      const s = await seedCompany(t.db);
      const [wallet] = await t
        .db('wallets')
        .insert({ company_id: s.companyId, name: 'dot', chain: 'polkadot', network: 'localnet', secret_envelope: '{}' })
        .returning('id');
      const [{ id }] = await t
        .db('withdrawals')
        .insert({
          company_id: s.companyId,
          wallet_id: wallet.id,
          intent_hash: 'x',
          chain: 'polkadot',
          network: 'localnet',
          asset_key: roc.key,
          amount: ROC.toString(),
          to_address: bob,
          outputs: JSON.stringify([{ toAddress: bob, amount: ROC.toString() }]),
          source_addresses: [primary],
          asset: JSON.stringify(roc),
          unsigned_tx: storedUnsigned(u),
          status: 'broadcast',
          signed_tx: signed.raw,
          tx_hash: signed.txHash,
        })
        .returning('id');
      const track = async (rpcUrl: string) => {
        const r = plugin.createReader('polkadot', 'localnet', { rpcUrl, retries: 0 });
        await trackWithdrawals(
          t.db,
          createLogger({ level: 'silent' }),
          plugin,
          r,
          { chain: 'polkadot', network: 'localnet' },
          {
            head: await r.head(),
            finalized: await r.finalized(),
            threshold: 1,
            finality: 'finalized',
          },
        );
        return t.db('withdrawals').where({ id }).first('status', 'last_error');
      };
      const eventsAt = (call: { method: string; params?: unknown[] }) =>
        call.method === 'state_getStorage' && call.params?.[0] === SYSTEM_EVENTS && call.params.length === 2;
      // A node that answers null for the block's System.Events, and one that answers as a pruned
      // Substrate node does (error 4003, the recorded message of substrate-api-sidecar#1562).
      const empty = await startRpcProxy(node.url, (call, reply) => {
        if (eventsAt(call)) reply.result = null;
      });
      const pruned = await startRpcProxy(node.url, (call, reply) => {
        if (!eventsAt(call)) return;
        delete reply.result;
        Object.assign(reply, {
          error: { code: 4003, message: `Client error: Api called for an unknown Block: State already discarded for ${call.params?.[1]}` },
        });
      });
      try {
        expect(await track(empty.url)).toEqual({
          status: 'broadcast',
          last_error: expect.stringMatching(/no events for block .*outcome is unknown/),
        });
        expect(await track(pruned.url)).toEqual({ status: 'broadcast', last_error: expect.stringMatching(/State already discarded/) });
      } finally {
        await empty.close();
        await pruned.close();
      }
      // The node answers again: confirmed, and the note is gone.
      expect(await track(node.url)).toEqual({ status: 'confirmed', last_error: null });
      expect(block).toBeGreaterThan(0n);
    } finally {
      await t.drop();
    }
  }, 60_000);
});
