import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NodeCallError, createJsonRpcClient, isNodeRefusal, readFailureReason } from '@walletd/plugin-kit';
import { fetchTraces, probeTraces } from './traceSource';

/** A node double answering by method, shaped by hand: what refusing, rate-limited and broken trace APIs answer. */
type Answer = { status?: number; error?: { code: number; message: string }; result?: unknown };
async function nodeAnswering(answers: Record<string, Answer>): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const call = JSON.parse(body) as { id: number; method: string };
      const a = answers[call.method] ?? { error: { code: -32601, message: `the method ${call.method} does not exist/is not available` } };
      const reply = a.error ? { jsonrpc: '2.0', id: call.id, error: a.error } : { jsonrpc: '2.0', id: call.id, result: a.result };
      res.writeHead(a.status ?? 200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
const rpcOf = (url: string) => createJsonRpcClient({ url, dialect: '2.0', retries: 0 });
const HEAD = { eth_blockNumber: { result: '0x10' } };

describe('probeTraces: which trace method the node serves', () => {
  const closing: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of closing.splice(0)) await c();
  });
  const node = async (answers: Record<string, Answer>) => {
    const n = await nodeAnswering({ ...HEAD, ...answers });
    closing.push(n.close);
    return rpcOf(n.url);
  };

  it('debug_traceBlockByNumber first; trace_block when the node lacks it', async () => {
    expect(
      await probeTraces(await node({ debug_traceBlockByNumber: { result: [] }, trace_block: { result: [] } }), 'ethereum/mainnet'),
    ).toBe('callTracer');
    expect(await probeTraces(await node({ trace_block: { result: [] } }), 'ethereum/mainnet')).toBe('flat');
  });

  it('both refused (method missing, or a provider plan: HTTP 403): a refusal naming the chain and both answers', async () => {
    for (const refusing of <Record<string, Answer>[]>[
      {},
      { debug_traceBlockByNumber: { status: 403, result: null }, trace_block: { status: 403, result: null } },
    ]) {
      const err = await probeTraces(await node(refusing), 'ethereum/mainnet').then(
        () => null,
        (e: unknown) => e,
      );
      expect(isNodeRefusal(err)).toBe(true);
      expect(readFailureReason(err)).toBe('traces_refused');
      expect((err as Error).message).toMatch(
        /^ethereum\/mainnet: the node serves no call traces \(debug_traceBlockByNumber.*; trace_block/,
      );
    }
  });

  it('a rate limit or a busy node is not a refusal: its node error is thrown (retried), not a stop', async () => {
    for (const busy of [
      { code: -32005, message: 'limit exceeded' },
      { code: -32000, message: 'too many requests, try again later' },
    ]) {
      const err = await probeTraces(await node({ debug_traceBlockByNumber: { error: busy } }), 'ethereum/mainnet').then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(NodeCallError);
      expect(isNodeRefusal(err)).toBe(false);
    }
  });

  it('fetchTraces: an error answer is a failed read of the block (traces_unavailable), never an empty trace', async () => {
    const rpc = await node({ debug_traceBlockByNumber: { error: { code: -32000, message: 'execution timeout' } } });
    const err = await fetchTraces(rpc, 'callTracer', 7n, 'ethereum/mainnet').then(
      () => null,
      (e: unknown) => e,
    );
    expect(readFailureReason(err)).toBe('traces_unavailable');
    expect((err as Error).message).toBe(
      'ethereum/mainnet: debug_traceBlockByNumber failed for block 7: debug_traceBlockByNumber: execution timeout',
    );
  });
});
