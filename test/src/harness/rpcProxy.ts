import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RpcProxy {
  url: string;
  close(): Promise<void>;
}

type RpcCall = { method: string; params?: unknown[] };
type RpcReply = { result?: unknown };

/**
 * A JSON-RPC pass-through to a real node that may rewrite answers: reproduces a node whose chain
 * is inconsistent (a devnet restored badly), which a healthy anvil cannot be made to serve.
 * Single requests only (the readers do not batch).
 */
export async function startRpcProxy(target: string, rewrite: (call: RpcCall, reply: RpcReply) => void): Promise<RpcProxy> {
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', async () => {
      try {
        const call = JSON.parse(body) as RpcCall;
        const upstream = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        const reply = (await upstream.json()) as RpcReply;
        rewrite(call, reply);
        res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
      } catch (err) {
        res.writeHead(502).end(String(err));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
