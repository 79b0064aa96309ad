import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One delivery as the receiver saw it: the event, its `webhook-id`, and the sender's socket. */
export interface Arrival {
  eventId: string;
  webhookId: string;
  type: string;
  txHash: string | undefined;
  /** The sender's (the dispatcher's) local port: which process sent it (socketOwner.ts). */
  senderPort: number;
}

/**
 * A webhook receiver that counts what it is sent, by `webhook-id` and by the body's event `id`.
 * `hold()` keeps every later request unanswered until `release()`: deliveries stay in flight, so a
 * dispatcher can be killed in the middle of sending them.
 */
export interface CountingReceiver {
  url: string;
  arrivals: Arrival[];
  /** Requests received but not yet answered. */
  inFlight(): Arrival[];
  hold(): void;
  release(): void;
  /** How many times each webhook-id arrived. */
  countsById(): Map<string, number>;
  close(): Promise<void>;
}

export async function startCountingReceiver(): Promise<CountingReceiver> {
  const arrivals: Arrival[] = [];
  const open = new Set<Arrival>();
  let gate: Promise<void> | null = null;
  let openGate: () => void = () => undefined;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string; type: string; data?: { txHash?: string } };
      const a: Arrival = {
        eventId: body.id,
        webhookId: String(req.headers['webhook-id']),
        type: body.type,
        txHash: body.data?.txHash,
        senderPort: req.socket.remotePort ?? 0,
      };
      arrivals.push(a);
      open.add(a);
      if (gate) await gate;
      open.delete(a);
      if (!res.destroyed) res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    arrivals,
    inFlight: () => [...open],
    hold: () => {
      gate ??= new Promise<void>((r) => {
        openGate = r;
      });
    },
    release: () => {
      gate = null;
      openGate();
    },
    countsById: () => {
      const m = new Map<string, number>();
      for (const a of arrivals) m.set(a.webhookId, (m.get(a.webhookId) ?? 0) + 1);
      return m;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
