import { type Server, createServer } from 'node:http';
import { createPolkadotReader } from './polkadotReader';

/**
 * The reader against a node that lost a block's state (a pruned, non-archive node answers
 * `state_getStorage` with null): the block is refused, never framed as a block without deposits.
 * A loopback JSON-RPC stub answering exactly those three calls.
 */
describe('Polkadot reader', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        const call = JSON.parse(body) as { id: number; method: string };
        const results: Record<string, unknown> = {
          chain_getBlockHash: `0x${'11'.repeat(32)}`,
          chain_getBlock: { block: { header: { number: '0x7', parentHash: `0x${'22'.repeat(32)}` }, extrinsics: ['0x0400'] } },
          state_getStorage: null,
        };
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result: results[call.method] ?? null }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
  });

  it('refuses a block whose System.Events the node no longer has', async () => {
    const reader = createPolkadotReader({ rpcUrl: url, retries: 0 });
    await expect(reader.fetchBlock(7n)).rejects.toMatchObject({ code: 'node_error', message: /no System.Events for block 7/ });
  });
});
