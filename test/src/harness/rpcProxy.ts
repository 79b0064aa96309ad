import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RpcProxy {
  url: string;
  /** Every call that reached the proxy, in order (method names). */
  calls: string[];
  close(): Promise<void>;
}

export type RpcCall = { method: string; params?: unknown[] };
type RpcReply = { result?: unknown };

export interface RpcProxyOptions {
  /** Rewrites the node's answer before it is returned. */
  rewrite?: (call: RpcCall, reply: RpcReply) => void;
  /**
   * Runs before the call is forwarded: a promise holds the call until it settles (a slow node);
   * 'drop' closes the connection without forwarding or answering (a transient network failure).
   */
  before?: (call: RpcCall) => Promise<undefined | 'drop'> | undefined | 'drop';
  /** The call as the node gets it (another method or params): a node answering another question than asked. */
  forward?: (call: RpcCall) => RpcCall;
  /** Answers in the node's place when it returns an answer (a node answering HTTP 500, or junk); the node is not asked. */
  answer?: (call: RpcCall) => { status: number; body: string } | undefined;
  /** Listen on this port (a node coming back where it was down), else on a free one. */
  port?: number;
}

/**
 * A JSON-RPC pass-through to a real node that may rewrite answers, hold calls or drop them:
 * reproduces a node whose chain is inconsistent (a devnet restored badly), a slow node or a lost
 * connection, which a healthy node cannot be made to serve. Single requests only (the readers do
 * not batch). The authorization header is passed through (Bitcoin Core's basic auth).
 */
export async function startRpcProxy(
  target: string,
  options: RpcProxyOptions | ((call: RpcCall, reply: RpcReply) => void),
): Promise<RpcProxy> {
  const {
    rewrite,
    before,
    forward,
    answer,
    port: at,
  } = typeof options === 'function'
    ? { rewrite: options, before: undefined, forward: undefined, answer: undefined, port: undefined }
    : options;
  const calls: string[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', async () => {
      try {
        const call = JSON.parse(body) as RpcCall;
        calls.push(call.method);
        if ((await before?.(call)) === 'drop') {
          req.socket.destroy();
          return;
        }
        const own = answer?.(call);
        if (own) {
          res.writeHead(own.status, { 'content-type': 'text/html' }).end(own.body);
          return;
        }
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (req.headers.authorization) headers.authorization = req.headers.authorization;
        const upstream = await fetch(target, { method: 'POST', headers, body: forward ? JSON.stringify(forward(call)) : body });
        if (!rewrite) {
          res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(await upstream.text());
          return;
        }
        const reply = (await upstream.json()) as RpcReply;
        rewrite(call, reply);
        res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
      } catch (err) {
        res.writeHead(502).end(String(err));
      }
    });
  });
  await new Promise<void>((r) => server.listen(at ?? 0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
