import { type ChainSettings, NodeCallError, createLogger } from '@walletd/core';
import { createIndexer, type Indexer } from '@walletd/indexer';
import { createEvmReader } from '@walletd/plugin-evm';
import { createTonReader } from '@walletd/plugin-ton';
import { createTronReader } from '@walletd/plugin-tron';
import { loadPlugins } from '@walletd/server';
import {
  type Anvil,
  createTestDatabase,
  eventually,
  type OversizedNode,
  startAnvil,
  startOversizedNode,
  startTestApp,
  type TestDatabase,
} from '@walletd/test-harness';

/**
 * Issue 29: a node padding its answers to 200 MB took the process to 2.86 GB. Every node client
 * stops reading at the chain's cap: the call fails with a node_error naming the chain and the cap,
 * and the node sees the connection closed long before its 200 MB are sent (nothing past the cap
 * is received, so nothing past it can be held).
 */
const HUGE = 200 * 1024 * 1024;
const CAP = 1024 * 1024;

const tooLarge = async (p: Promise<unknown>): Promise<NodeCallError> => {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(NodeCallError);
  expect((e as NodeCallError).node).toMatchObject({ kind: 'too_large', attempts: 1, limit: CAP });
  return e as NodeCallError;
};

/** The node hung up on before the end, and sent no more than the cap plus what sockets buffer. */
async function expectCutShort(node: OversizedNode, answers = 1): Promise<void> {
  await eventually(
    async () => node.closedEarly(),
    (n) => n >= answers,
  );
  expect(node.closedEarly()).toBe(answers);
  expect(node.finished()).toBe(0);
  expect(node.sent()).toBeLessThan(answers * 32 * 1024 * 1024);
}

describe('node answers larger than the chain allows', () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });
  const node = async (oversize: (call: string) => boolean, extra: { target?: string; declareLength?: boolean } = {}) => {
    const n = await startOversizedNode({ bytes: HUGE, oversize, ...extra });
    cleanup.push(() => n.close());
    return n;
  };

  it('JSON-RPC (the EVM block fetch): stops at the cap, names the chain and the cap, closes the connection', async () => {
    const n = await node((m) => m === 'eth_getBlockByNumber' || m === 'eth_getBlockReceipts');
    // No traces: this node answers nothing else (a trace answer goes through the same capped client).
    const reader = createEvmReader({ rpcUrl: n.url, maxResponseBytes: CAP, name: 'ethereum/mainnet', internalTransfers: 'off' });
    const e = await tooLarge(reader.fetchBlock(1n));
    expect(e.code).toBe('node_error');
    expect(e.message).toMatch(/^ethereum\/mainnet: eth_getBlock(ByNumber|Receipts) answered more than 1048576 bytes; reading stopped/);
    expect(e.message).toContain('chains[].maxResponseBytes');
    // Both answers (block and receipts) were cut; neither was retried (the node would send it again).
    await expectCutShort(n, 2);
  });

  it('JSON-RPC: a declared length over the cap is refused before the body is read', async () => {
    const n = await node(() => true, { declareLength: true });
    // No traces: this node answers nothing else (a trace answer goes through the same capped client).
    const reader = createEvmReader({ rpcUrl: n.url, maxResponseBytes: CAP, name: 'ethereum/mainnet', internalTransfers: 'off' });
    await tooLarge(reader.head());
    await expectCutShort(n);
  });

  it('java-tron HTTP and toncenter: the same cap and error', async () => {
    const tron = await node((path) => path === '/wallet/getnowblock');
    const t = await tooLarge(createTronReader({ rpcUrl: tron.url, maxResponseBytes: CAP, name: 'tron/mainnet' }).head());
    expect(t.message).toMatch(/^tron\/mainnet: \/wallet\/getnowblock answered more than 1048576 bytes/);
    await expectCutShort(tron);

    const ton = await node((path) => path === '/getMasterchainInfo', { declareLength: true });
    const o = await tooLarge(createTonReader('mainnet', { rpcUrl: ton.url, maxResponseBytes: CAP, name: 'ton/mainnet' }).head());
    expect(o.message).toMatch(/^ton\/mainnet: getMasterchainInfo answered more than 1048576 bytes/);
    await expectCutShort(ton);
  });
});

describe('an indexer whose node sends an oversized block', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  let indexer: Indexer;
  beforeAll(async () => {
    t = await createTestDatabase();
    anvil = await startAnvil();
  });
  afterAll(async () => {
    await indexer?.stop();
    await anvil.stop();
    await t.drop();
  });

  it('fails the round with the cap named (chains[].maxResponseBytes) and /readyz not ready, the rest never received', async () => {
    await anvil.mine(2);
    const n = await startOversizedNode({ bytes: HUGE, target: anvil.url, oversize: (m) => m === 'eth_getBlockReceipts' });
    try {
      const chains: ChainSettings[] = [
        { chain: 'ethereum', network: 'devnet', rpcUrl: n.url, startBlock: 0, pollIntervalMs: 50, maxResponseBytes: CAP },
      ];
      indexer = createIndexer({ db: t.db, logger: createLogger({ level: 'silent' }), registry: loadPlugins(), chains, threads: 1 });
      indexer.start();
      const health = await eventually(
        () => t.db('chain_health').first('status', 'last_error'),
        (row) => row?.status === 'failing',
      );
      expect(health.last_error).toMatch(/^ethereum\/devnet: eth_getBlockReceipts answered more than 1048576 bytes; reading stopped/);
      const app = await startTestApp(t.db, { chains });
      try {
        const ready = await fetch(`${app.url}/readyz`);
        expect(ready.status).toBe(503);
        expect(await ready.json()).toMatchObject({ chains: [{ ready: false, reason: 'answer_too_large', nodeReachable: true }] });
      } finally {
        await app.close();
      }
      await indexer.stop();
      expect(n.finished()).toBe(0);
      expect(n.closedEarly()).toBeGreaterThanOrEqual(1);
      expect(n.sent()).toBeLessThan(n.closedEarly() * 32 * 1024 * 1024);
      expect(Number((await t.db('chain_cursors').where({ chain: 'ethereum', network: 'devnet' }).first('height'))?.height ?? -1)).toBe(-1);
    } finally {
      await n.close();
    }
  });
});
