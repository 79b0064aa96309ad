import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createJsonRpcClient } from './jsonRpcClient';
import { NodeCallError } from './nodeCallError';

/** A loopback node writing each answer in the pieces given, a pause between them (so they arrive as separate chunks). */
async function chunkedNode(pieces: string[]): Promise<{ url: string; server: Server }> {
  const server = createServer(async (req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' });
    for (const p of pieces) {
      res.write(p);
      await new Promise((r) => setTimeout(r, 20));
    }
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

const joined = (parts: readonly Uint8Array[]) => Buffer.concat(parts.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength)));

describe('callRawParts: an answer as the chunks it arrived in (issue 41, one copy fewer per block)', () => {
  let server: Server | undefined;
  afterEach(() => server?.close());

  it('hands back the same bytes as callRaw, unjoined', async () => {
    const big = `"0x${'ab'.repeat(150_000)}"`;
    const pieces = ['{"jsonrpc":"2.0","id":1,"result":{"a":', big, ',"b":', big, '}}'];
    const node = await chunkedNode(pieces);
    server = node.server;
    const rpc = createJsonRpcClient({ url: node.url, dialect: '2.0', retries: 0 });
    const parts = await rpc.callRawParts('eth_getBlockByNumber', ['0x1', true]);
    expect(joined(parts).toString('utf8')).toBe(pieces.join(''));
    expect(Buffer.from(await rpc.callRaw('eth_getBlockByNumber', ['0x1', true])).toString('utf8')).toBe(pieces.join(''));
  });

  it('accepts a success whose "result" is not in the first chunk', async () => {
    const pieces = ['{"jsonrpc":"2.0",', '"id":1,', '"result":"0x1"}'];
    const node = await chunkedNode(pieces);
    server = node.server;
    const rpc = createJsonRpcClient({ url: node.url, dialect: '2.0', retries: 0 });
    expect(joined(await rpc.callRawParts('eth_blockNumber', [])).toString('utf8')).toBe(pieces.join(''));
  });

  it('throws the node error of an error answer, in one chunk or several', async () => {
    for (const pieces of [
      ['{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"header not found"}}'],
      ['{"jsonrpc":"2.0","id":1,', '"error":{"code":-32000,', '"message":"header not found"}}'],
    ]) {
      const node = await chunkedNode(pieces);
      const rpc = createJsonRpcClient({ url: node.url, dialect: '2.0', retries: 0 });
      const e = await rpc.callRawParts('eth_getBlockReceipts', ['0x1']).catch((x: unknown) => x);
      node.server.close();
      expect(e).toBeInstanceOf(NodeCallError);
      expect((e as NodeCallError).message).toBe('eth_getBlockReceipts: header not found');
      expect((e as NodeCallError).node).toMatchObject({ kind: 'rpc', rpcCode: -32000 });
    }
  });
});
