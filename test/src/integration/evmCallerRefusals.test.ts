import { randomBytes } from 'node:crypto';
import { type ChainSettings, MasterKey } from '@walletd/core';
import { createDetectPool, type DetectPool, type Follower } from '@walletd/indexer';
import { decodeRlp, encodeRlp, Transaction } from 'ethers';
import {
  type Anvil,
  type RpcProxy,
  type Seeded,
  type TestApp,
  type TestDatabase,
  type TestToken,
  call,
  createTestDatabase,
  deployTestToken,
  seedCompany,
  startAnvil,
  startRpcProxy,
  startTestApp,
  testFollower,
} from '@walletd/test-harness';

/**
 * What the caller got wrong is a 4xx even when a node is the one who notices: a transfer the node
 * deterministically refuses (a contract that reverts) and a signature no key can make are 422
 * naming why; only a node that does not answer is 502. Through the API, on anvil.
 */
describe('EVM refusals of the caller’s transaction are 422, an absent node 502', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  let pool: DetectPool;
  let token: TestToken;
  let app: TestApp;
  let proxy: RpcProxy;
  /** While set, the node's proxy drops every gas estimate (the connection closes, no answer). */
  let mute = false;
  let s: Seeded;
  let follower: Follower;
  let walletId: number;
  const masterKey = new MasterKey(randomBytes(32));

  const api = (method: string, path: string, body?: unknown) => call(app.url, method, `/v1${path}`, { key: s.rootKey, body });
  const prepare = (wallet: number, body: Record<string, unknown>) => api('POST', `/wallets/${wallet}/withdrawals`, body);

  beforeAll(async () => {
    t = await createTestDatabase();
    anvil = await startAnvil();
    pool = createDetectPool(1);
    // A token contract has no payable fallback: plain ETH sent to it reverts.
    token = await deployTestToken(anvil, 'Reverts ETH', 'RVT', 6);
    proxy = await startRpcProxy(anvil.url, { before: (c) => (mute && c.method === 'eth_estimateGas' ? 'drop' : undefined) });
    const settings: ChainSettings = { chain: 'ethereum', network: 'devnet', rpcUrl: anvil.url, confirmations: 1, startBlock: 0 };
    const viaProxy: ChainSettings = { ...settings, rpcUrl: proxy.url, rpcRetries: 0 };
    app = await startTestApp(t.db, { chains: [viaProxy], rateLimit: { writesPerKeyPerMinute: 1000 } }, masterKey);
    follower = testFollower(t.db, pool, settings);
    s = await seedCompany(t.db);
    walletId = (await api('POST', '/wallets', { name: 'hot', chain: 'ethereum', network: 'devnet' })).body.id;
    const source = (await api('POST', `/wallets/${walletId}/addresses`)).body.address;
    await anvil.send(source, 2n * 10n ** 18n);
    await anvil.mine(2);
    await follower.tick();
  });
  afterAll(async () => {
    await app.close();
    await proxy.close();
    await pool.close();
    await anvil.stop();
    await t.drop();
  });

  it('ETH to a contract that reverts is 422 with the node’s reason at prepare, and records nothing', async () => {
    const r = await prepare(walletId, { asset: 'ETH', toAddress: token.address, amount: '0.1', idempotencyKey: 'revert-1' });
    expect({ status: r.status, code: r.body.code }).toEqual({ status: 422, code: 'unprocessable' });
    expect(r.body.message).toMatch(/^the node refused the transaction: .*execution reverted/);
    expect((await api('GET', `/wallets/${walletId}/withdrawals`)).body.withdrawals).toEqual([]);
  });

  it('a node that does not answer the same call is 502 node_error', async () => {
    mute = true;
    try {
      const r = await prepare(walletId, { asset: 'ETH', toAddress: token.address, amount: '0.1', idempotencyKey: 'mute-1' });
      expect({ status: r.status, code: r.body.code }).toEqual({ status: 502, code: 'node_error' });
    } finally {
      mute = false;
    }
  });

  /** The prepared transaction with a signature no key can make (yParity 0, r and s as given). */
  function forged(p: Record<string, string | number>, rs: string): string {
    const unsigned = Transaction.from({
      type: 2,
      chainId: BigInt(p.chainId as string),
      nonce: p.nonce as number,
      to: p.to as string,
      value: BigInt(p.value as string),
      data: p.data as string,
      gasLimit: BigInt(p.gasLimit as string),
      maxFeePerGas: BigInt(p.maxFeePerGas as string),
      maxPriorityFeePerGas: BigInt(p.maxPriorityFeePerGas as string),
    }).unsignedSerialized;
    const fields = decodeRlp(`0x${unsigned.slice(4)}`) as string[];
    return `0x02${encodeRlp([...fields, '0x', rs, rs]).slice(2)}`;
  }

  it.each([
    ['r = s = 0', '0x'],
    ['r = s = 2^256 − 1', `0x${'ff'.repeat(32)}`],
  ])('a signed transaction with %s is 422 naming the signature; the withdrawal stays prepared', async (_name, rs) => {
    const prepared = await prepare(walletId, {
      asset: 'ETH',
      toAddress: '0x000000000000000000000000000000000000dEaD',
      amount: '0.01',
      idempotencyKey: `forged-${rs.length}`,
    });
    expect(prepared.status).toBe(201);
    const raw = forged(prepared.body.unsignedTransaction.payload, rs);
    const r = await api('POST', `/withdrawals/${prepared.body.id}/broadcast`, { signedTransaction: raw });
    expect({ status: r.status, code: r.body.code }).toEqual({ status: 422, code: 'unprocessable' });
    expect(r.body.message).toMatch(/signature/);
    expect((await api('GET', `/withdrawals/${prepared.body.id}`)).body.status).toBe('prepared');
    await api('POST', `/withdrawals/${prepared.body.id}/cancel`);
  });
});
