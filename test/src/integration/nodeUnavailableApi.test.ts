import { randomBytes } from 'node:crypto';
import { type ChainSettings, MasterKey } from '@walletd/core';
import {
  type Anvil,
  type CallResult,
  type RpcProxy,
  type Seeded,
  type TestApp,
  type TestDatabase,
  call,
  creditAddress,
  createTestDatabase,
  expectSchema,
  seedCompany,
  startAnvil,
  startRpcProxy,
  startTestApp,
} from '@walletd/test-harness';

/**
 * A chain's node that stops answering, met through the API (prepare, sign and broadcast, the
 * on-chain balance). The 502's message quoted the transport's error, node address included
 * (`connect ECONNREFUSED 127.0.0.1:18595`); now it names the chain and nothing of the node, and
 * the full cause is in the server's log only.
 */
describe('a 502 names the chain whose node did not answer, never the node', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  let node: RpcProxy;
  let app: TestApp;
  let s: Seeded;
  let walletId: number;
  let port: string;
  const recipient = '0x000000000000000000000000000000000000dEaD';
  const api = (method: string, path: string, body?: unknown) => call(app.url, method, `/v1${path}`, { key: s.rootKey, body });

  /** The error body as a caller gets it, with nothing that locates the node. */
  function expectChainNamedOnly(r: CallResult) {
    expect(r.status).toBe(502);
    expectSchema('ErrorBody', r.body);
    expect(r.body).toEqual({
      statusCode: 502,
      error: 'Bad Gateway',
      code: 'node_error',
      message: 'The ethereum/devnet node did not answer; try again later',
    });
    for (const leak of ['127.0.0.1', port, 'ECONNREFUSED', 'http://']) expect(r.text).not.toContain(leak);
  }

  beforeAll(async () => {
    t = await createTestDatabase();
    anvil = await startAnvil();
    // The node the service knows is a pass-through to anvil, closed below: its port then refuses connections.
    node = await startRpcProxy(anvil.url, {});
    port = new URL(node.url).port;
    const settings: ChainSettings = { chain: 'ethereum', network: 'devnet', rpcUrl: node.url, confirmations: 2, rpcRetries: 0 };
    app = await startTestApp(t.db, { chains: [settings], rateLimit: { writesPerKeyPerMinute: 1000 } }, new MasterKey(randomBytes(32)));
    s = await seedCompany(t.db);
    walletId = (await api('POST', '/wallets', { name: 'hot', chain: 'ethereum', network: 'devnet' })).body.id;
    const source = (await api('POST', `/wallets/${walletId}/addresses`)).body;
    await anvil.send(source.address, 10n ** 18n);
    await creditAddress(t.db, source, 'ethereum:devnet:eth', 10n ** 18n);
  });
  afterAll(async () => {
    await app.close();
    await anvil.stop();
    await t.drop();
  });

  it('prepare, broadcast and the on-chain balance answer 502 naming ethereum/devnet; the log has the cause', async () => {
    const prepared = await api('POST', `/wallets/${walletId}/withdrawals`, {
      asset: 'ETH',
      toAddress: recipient,
      amount: '0.1',
      idempotencyKey: 'up',
    });
    expect(prepared.status).toBe(201);

    await node.close();
    expectChainNamedOnly(
      await api('POST', `/wallets/${walletId}/withdrawals`, { asset: 'ETH', toAddress: recipient, amount: '0.1', idempotencyKey: 'down' }),
    );
    // Signing builds the transaction again on the node (fresh nonce and fees).
    expectChainNamedOnly(await api('POST', `/withdrawals/${prepared.body.id}/broadcast`));
    expectChainNamedOnly(await api('GET', `/wallets/${walletId}/balances?onchain=true`));

    // The operator's side: each 502 logged with what the node's client said, address and all.
    const failures = app.logs.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request failed');
    expect(failures).toHaveLength(3);
    for (const line of failures) expect(line.err.message).toMatch(new RegExp(`ECONNREFUSED 127\\.0\\.0\\.1:${port}`));
  });
});
