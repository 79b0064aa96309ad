import { type ChainSettings, createLogger, type Logger } from '@walletd/core';
import { createIndexer, type Indexer } from '@walletd/indexer';
import { loadPlugins } from '@walletd/server';
import {
  type Anvil,
  call,
  type CallResult,
  createTestDatabase,
  eventually,
  type RpcCall,
  startAnvil,
  startRpcProxy,
  startTestApp,
  type TestApp,
  type TestDatabase,
} from '@walletd/test-harness';

/**
 * Issue 29 §4: what an operator is told about a node that hangs, answers the wrong heights or
 * times out, read where they read it (`/readyz`, the indexer's log), from a real indexer following
 * anvil through a loopback proxy that misbehaves on demand.
 */
describe('node faults, as readiness and the log tell them', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  const cleanup: (() => Promise<unknown>)[] = [];
  beforeAll(async () => {
    anvil = await startAnvil();
  });
  afterAll(async () => {
    await anvil.stop();
  });
  beforeEach(async () => {
    t = await createTestDatabase();
  });
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
    await t.drop();
  });

  const chain = (rpcUrl: string, extra: Partial<ChainSettings> = {}): ChainSettings => ({
    chain: 'ethereum',
    network: 'devnet',
    rpcUrl,
    startBlock: 0,
    confirmations: 1,
    pollIntervalMs: 100,
    ...extra,
  });
  function follow(settings: ChainSettings, logger: Logger = createLogger({ level: 'silent' })): Indexer {
    const ix = createIndexer({ db: t.db, logger, registry: loadPlugins(), chains: [settings], threads: 1 });
    ix.start();
    cleanup.push(() => ix.stop());
    return ix;
  }
  async function app(settings: ChainSettings, indexer: Record<string, number> = {}): Promise<TestApp> {
    const a = await startTestApp(t.db, { chains: [settings], indexer });
    cleanup.push(() => a.close());
    return a;
  }
  const readyz = (a: TestApp) => (done: (r: CallResult) => boolean) => eventually(() => call(a.url, 'GET', '/readyz'), done);
  const proxy = async (options: Parameters<typeof startRpcProxy>[1]) => {
    const p = await startRpcProxy(anvil.url, options);
    cleanup.push(() => p.close());
    return p;
  };

  it('a node that hangs makes /readyz not ready (stalled) once the last good round is older than indexer.stalledAfterMs, long before its calls time out', async () => {
    let hang = false;
    const held: (() => void)[] = [];
    const p = await proxy({
      before: () => (hang ? new Promise<undefined>((r) => held.push(() => r(undefined))) : undefined),
    });
    cleanup.push(async () => {
      for (const r of held) r();
    });
    // Calls wait 30 s each, three attempts: the round would fail only after ~90 s.
    const settings = chain(p.url, { rpcTimeoutMs: 30_000 });
    follow(settings);
    const until = readyz(await app(settings, { stalledAfterMs: 1000 }));
    expect((await until((r) => r.status === 200)).status).toBe(200);

    hang = true;
    const stalled = await until((r) => r.status === 503);
    expect(stalled.body).toMatchObject({
      message: 'not ready: ethereum/devnet: stalled',
      chains: [{ ready: false, reason: 'stalled', nodeReachable: true }],
    });

    hang = false;
    for (const r of held.splice(0)) r();
    expect((await until((r) => r.status === 200)).status).toBe(200);
  });

  it('a node answering every block for the next height is named as such, not as a reorg deeper than the window', async () => {
    let shift = false;
    // eth_getBlockByNumber/eth_getBlockReceipts for height n answered with block n + 1 (block 0 left alone).
    const p = await proxy({
      forward: (c: RpcCall) => {
        const at = c.params?.[0];
        if (!shift || !c.method.startsWith('eth_getBlock') || typeof at !== 'string' || !at.startsWith('0x') || at === '0x0') return c;
        return { ...c, params: [`0x${(BigInt(at) + 1n).toString(16)}`, ...(c.params ?? []).slice(1)] };
      },
    });
    await anvil.mine(3);
    const settings = chain(p.url);
    follow(settings);
    const until = readyz(await app(settings));
    expect((await until((r) => r.status === 200)).status).toBe(200);
    const head = Number(await anvil.head());
    await eventually(
      async () => Number((await t.db('chain_cursors').first('height'))?.height),
      (h) => h === head,
    );

    // From here the follower compares its last block's hash with the node's: the check a wrong height used to fail as a reorg.
    shift = true;
    await anvil.mine(1);
    const wrong = await until((r) => r.status === 503);
    expect(wrong.body).toMatchObject({
      message: 'not ready: ethereum/devnet: wrong_heights',
      chains: [{ ready: false, reason: 'wrong_heights', nodeReachable: true }],
    });
    const { last_error: error } = await t.db('chain_health').first('last_error');
    expect(error).toMatch(
      /^ethereum\/devnet: the node answers the wrong heights: asked eth_getBlockByNumber for block \d+, it answered block \d+/,
    );
    expect(error).toContain(`asked eth_getBlockByNumber for block ${head}, it answered block ${head + 1}`);
    expect(error).not.toContain('reorg deeper');
    // Nothing was rewound over it.
    expect(Number((await t.db('chain_cursors').first('height')).height)).toBe(head);
  });

  it("a timed-out call is logged with its text once ('timed out after 200 ms', not twice)", async () => {
    const held: (() => void)[] = [];
    const p = await proxy({ before: () => new Promise<undefined>((r) => held.push(() => r(undefined))) });
    cleanup.push(async () => {
      for (const r of held) r();
    });
    const lines: string[] = [];
    const logger = createLogger({ level: 'error', destination: { write: (s: string) => lines.push(s) } });
    follow(chain(p.url, { rpcTimeoutMs: 200, rpcRetries: 0 }), logger);
    // The outage's one line (nodeOutage.ts) names the cause in its message.
    const failed = await eventually(
      async () => lines.map((l) => JSON.parse(l) as { msg: string; kind?: string }).find((l) => l.msg.startsWith('ethereum/devnet node')),
      (l) => l !== undefined,
    );
    expect(failed).toMatchObject({ kind: 'timeout' });
    expect(failed?.msg).toMatch(
      /^ethereum\/devnet node not answering in time: eth_\w+ failed: timed out after 200 ms; retrying with back-off$/,
    );
  });
});
