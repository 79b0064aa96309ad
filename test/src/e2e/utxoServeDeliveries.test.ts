import { addressOfScript, utxoMatchKey, utxoNetwork } from '@walletd/plugin-utxo';
import {
  GENUINE,
  type RegtestNode,
  type Seeded,
  type TestDatabase,
  type TestReceiver,
  type WalletdProcess,
  call,
  createTestDatabase,
  describeWithLitecoind,
  eventually,
  serveWithConfig,
  seedCompany,
  signatureChecks,
  startLitecoind,
  startReceiver,
  asLitecoind,
} from '@walletd/test-harness';

interface Envelope {
  type: string;
  data: { txHash: string; amount: string; toAddress: string; status: string; confirmations: number; reason?: string };
}

/** The node prints litecoin's regtest encodings: the same output script, its own bech32 prefix. */
const nodeAddress = (address: string) => {
  const net = utxoNetwork('bitcoin', 'regtest');
  const script = Buffer.from(utxoMatchKey('bitcoin', 'regtest', address), 'hex');
  return addressOfScript(asLitecoind(net), script) as string;
};

/**
 * Bitcoin-family from node to receiver: the real `walletd serve` following a litecoind regtest
 * node as bitcoin/regtest (2 confirmations), one webhook for every event, a real receiver verifying
 * each request with @walletd/receiver. A mempool deposit arrives detected (0 confirmations), the
 * balance meanwhile credits nothing, then confirmed; a mempool deposit replaced by RBF arrives as
 * deposit.rejected (mempool_dropped) and its replacement is followed to confirmed.
 */
describeWithLitecoind('walletd serve on litecoind regtest: deposits, confirmed and rejected, reach the receiver', () => {
  let t: TestDatabase;
  let node: RegtestNode;
  let rx: TestReceiver;
  let proc: WalletdProcess;
  let base: string;
  let s: Seeded;
  let secret: string;

  const api = (method: string, path: string, body?: unknown) => call(base, method, `/v1${path}`, { key: s.rootKey, body });
  const received = () => rx.requests.map((r) => JSON.parse(r.rawBody) as Envelope);
  const about = (txid: string) => received().filter((e) => e.data.txHash === txid);
  const newAddress = async (name: string) => {
    const wallet = (await api('POST', '/wallets', { name, chain: 'bitcoin', network: 'regtest' })).body.id as number;
    return { wallet, address: (await api('POST', `/wallets/${wallet}/addresses`)).body.address as string };
  };
  const btc = async (wallet: number) => {
    type Row = { asset: { symbol: string }; confirmed: string; pending: string; reserved: string; available: string };
    const list = (await api('GET', `/wallets/${wallet}/balances`)).body.balances as Row[];
    const row = list.find((b) => b.asset.symbol === 'BTC');
    return row && { confirmed: row.confirmed, pending: row.pending, reserved: row.reserved, available: row.available };
  };

  beforeAll(async () => {
    t = await createTestDatabase();
    node = await startLitecoind();
    rx = await startReceiver();
    const startBlock = (await node.rpc<number>('getblockcount')) + 1;
    ({ proc, base } = await serveWithConfig(t.url, {
      bootstrap: false,
      devnet: { enabled: false },
      webhooks: { allowCidrs: ['127.0.0.0/8'], pollIntervalMs: 100 },
      chains: [{ chain: 'bitcoin', network: 'regtest', rpcUrl: node.url, confirmations: 2, startBlock, pollIntervalMs: 100 }],
    }));
    s = await seedCompany(t.db);
    const hook = await api('POST', '/webhooks', { type: 'api', config: { url: `${rx.url}/hook` }, events: ['*'] });
    expect(hook.status).toBe(201);
    secret = hook.body.signingSecret;
  });
  afterAll(async () => {
    proc?.child.kill('SIGTERM');
    await proc?.exited;
    await rx?.close();
    await node?.stop();
    await t?.drop();
  });

  it('a mempool deposit arrives detected with nothing credited, then confirmed at the threshold', async () => {
    const { wallet, address } = await newAddress('hot');
    const txid = await node.rpc<string>('sendtoaddress', [nodeAddress(address), '1.25']);
    await eventually(
      async () => about(txid),
      (l) => l.length === 1,
    );
    // No block is mined until the test mines one: the deposit is still in the mempool.
    expect(about(txid).map((e) => [e.type, e.data.amount, e.data.toAddress, e.data.confirmations])).toEqual([
      ['deposit.detected', '1.25', address, 0],
    ]);
    expect(await btc(wallet)).toEqual({ confirmed: '0', pending: '1.25', reserved: '0', available: '0' });

    await node.mine(2);
    const events = await eventually(
      async () => about(txid),
      (l) => l.length === 2,
    );
    expect(events.map((e) => [e.type, e.data.amount, e.data.status, e.data.confirmations])).toEqual([
      ['deposit.detected', '1.25', 'pending', 0],
      ['deposit.confirmed', '1.25', 'confirmed', 2],
    ]);
    expect(await btc(wallet)).toEqual({ confirmed: '1.25', pending: '0', reserved: '0', available: '1.25' });
    for (const r of rx.requests) expect(signatureChecks(r, secret)).toEqual(GENUINE);
  });

  it('a mempool deposit replaced by RBF arrives as deposit.rejected, mempool_dropped; the replacement is confirmed once', async () => {
    const { wallet, address } = await newAddress('rbf');
    const original = await node.rpc<string>('sendtoaddress', [nodeAddress(address), '0.7']);
    await eventually(
      async () => about(original),
      (l) => l.length === 1,
    );
    // A conflicting transaction spends the same inputs with a higher fee: the original can never be mined.
    const { txid: replacement } = await node.rpc<{ txid: string }>('bumpfee', [original]);
    const rejected = await eventually(
      async () => about(original),
      (l) => l.length === 2,
    );
    expect(rejected.map((e) => [e.type, e.data.status, e.data.reason, e.data.amount])).toEqual([
      ['deposit.detected', 'pending', undefined, '0.7'],
      ['deposit.rejected', 'rejected', 'mempool_dropped', '0.7'],
    ]);
    await eventually(
      async () => about(replacement),
      (l) => l.length === 1,
    );
    expect(await btc(wallet)).toEqual({ confirmed: '0', pending: '0.7', reserved: '0', available: '0' });

    await node.mine(2);
    const followed = await eventually(
      async () => about(replacement),
      (l) => l.length === 2,
    );
    expect(followed.map((e) => [e.type, e.data.amount, e.data.toAddress])).toEqual([
      ['deposit.detected', '0.7', address],
      ['deposit.confirmed', '0.7', address],
    ]);
    expect(await btc(wallet)).toEqual({ confirmed: '0.7', pending: '0', reserved: '0', available: '0.7' });
    expect(about(original).map((e) => e.type)).toEqual(['deposit.detected', 'deposit.rejected']);
    for (const r of rx.requests) expect(signatureChecks(r, secret)).toEqual(GENUINE);
  });
});
