import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OversizedNode {
  url: string;
  /** Bytes of oversized bodies written so far (all answers together). */
  sent(): number;
  /** Oversized answers whose connection the client closed before the whole body was sent. */
  closedEarly(): number;
  /** Oversized answers sent to the end (the client read them whole). */
  finished(): number;
  close(): Promise<void>;
}

export interface OversizedNodeOptions {
  /** Size of each oversized body; it is generated as it is sent, never held whole here. */
  bytes: number;
  /** Which requests get the oversized body (the JSON-RPC method, else the URL path); others go to `target`. */
  oversize: (call: string) => boolean;
  /** A real node the other requests are passed to (POST body and authorization as they came). */
  target?: string;
  /** Declare the size in content-length (true) or send it chunked (false, the default). */
  declareLength?: boolean;
}

/**
 * A node that answers a real request with a body far larger than any real block: a valid JSON-RPC
 * prefix, then padding streamed lazily under back-pressure (the next chunk only when the socket
 * drained), so the test process stays small and the node sends only as fast as the client reads.
 * It counts what it sent and whether the client hung up before the end: a client that reads
 * everything into memory lets it finish; one that stops at its cap closes the connection first.
 */
export async function startOversizedNode(options: OversizedNodeOptions): Promise<OversizedNode> {
  let sent = 0;
  let closedEarly = 0;
  let finished = 0;
  const chunk = Buffer.alloc(64 * 1024, 'x');
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(parts).toString('utf8');
      let call = req.url ?? '/';
      try {
        call = (JSON.parse(body) as { method?: string }).method ?? call;
      } catch {
        // A GET (toncenter) or a path-addressed POST (java-tron): the path names the call.
        call = (req.url ?? '/').split('?')[0] as string;
      }
      if (!options.oversize(call)) {
        if (!options.target) {
          res.writeHead(404).end();
          return;
        }
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (req.headers.authorization) headers.authorization = req.headers.authorization;
        const upstream = await fetch(options.target, { method: 'POST', headers, body });
        res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(await upstream.text());
        return;
      }
      const head = Buffer.from('{"jsonrpc":"2.0","id":1,"ok":true,"result":{"pad":"');
      const tail = Buffer.from('"}}');
      res.writeHead(200, {
        'content-type': 'application/json',
        ...(options.declareLength ? { 'content-length': String(options.bytes) } : {}),
      });
      let left = options.bytes - head.length - tail.length;
      let done = false;
      res.on('close', () => {
        if (!done) closedEarly++;
      });
      const pump = () => {
        while (left > 0 && !res.destroyed) {
          const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
          left -= piece.length;
          sent += piece.length;
          if (!res.write(piece)) {
            res.once('drain', pump);
            return;
          }
        }
        if (left <= 0 && !res.destroyed) {
          done = true;
          finished++;
          res.end(tail);
        }
      };
      sent += head.length;
      res.write(head);
      pump();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    sent: () => sent,
    closedEarly: () => closedEarly,
    finished: () => finished,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
