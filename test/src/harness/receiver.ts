import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  rawBody: string;
  at: number;
}

export type Responder = (req: ReceivedRequest, res: ServerResponse, index: number) => void | Promise<void>;

export interface TestReceiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** Replaces how the receiver answers (default: 200 "ok"). */
  respond(fn: Responder): void;
  /** Resolves once `n` requests have arrived. */
  waitForRequests(n: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

/** A real HTTP receiver on loopback that records the exact bytes it was sent. */
export async function startReceiver(): Promise<TestReceiver> {
  const requests: ReceivedRequest[] = [];
  let responder: Responder = (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  };
  const waiters: { n: number; resolve: () => void }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        rawBody: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      requests.push(r);
      for (const w of [...waiters]) {
        if (requests.length >= w.n) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      }
      Promise.resolve(responder(r, res, requests.length - 1)).catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    respond: (fn) => {
      responder = fn;
    },
    waitForRequests: (n, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        if (requests.length >= n) return resolve(requests);
        const timer = setTimeout(() => reject(new Error(`receiver got ${requests.length} of ${n} requests`)), timeoutMs);
        waiters.push({
          n,
          resolve: () => {
            clearTimeout(timer);
            resolve(requests);
          },
        });
      }),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
