import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { nodeOptionsOf, readerJsonRpcClient } from './readerClient';

describe('a reader options, passed on to its node transport', () => {
  it('carries only what the operator set, so each transport keeps its defaults', () => {
    expect(nodeOptionsOf({ rpcUrl: 'http://node:8545' })).toEqual({ url: 'http://node:8545' });
    expect(nodeOptionsOf({ rpcUrl: 'http://node', timeoutMs: 5, retries: 0, maxResponseBytes: 10, name: 'ethereum/devnet' })).toEqual({
      url: 'http://node',
      timeoutMs: 5,
      retries: 0,
      maxResponseBytes: 10,
      name: 'ethereum/devnet',
    });
  });

  it('readerJsonRpcClient calls the reader node in the dialect asked, under the answer cap', async () => {
    const bodies: string[] = [];
    const server: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        bodies.push(body);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"1.0","id":1,"result":"0x10","error":null}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const rpcUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const client = readerJsonRpcClient({ rpcUrl, retries: 0 }, '1.0');
      expect((await client.call<string>('getblockcount', [])).result).toBe('0x10');
      expect(JSON.parse(bodies[0] as string)).toMatchObject({ jsonrpc: '1.0', method: 'getblockcount' });
      const capped = readerJsonRpcClient({ rpcUrl, retries: 0, maxResponseBytes: 8, name: 'bitcoin/regtest' }, '1.0');
      await expect(capped.call('getblockcount', [])).rejects.toThrow(/bitcoin\/regtest: getblockcount answered more than 8 bytes/);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
