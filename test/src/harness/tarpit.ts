import { createServer, type Server, type Socket } from 'node:net';

export interface Tarpit {
  url: string;
  /** Connections open now. */
  open(): number;
  /** The most connections open at once. */
  most(): number;
  /** Connections accepted so far. */
  accepted(): number;
  close(): Promise<void>;
}

/** A receiver that accepts every connection, reads what comes and never answers (issues 29, 43). */
export async function startTarpit(): Promise<Tarpit> {
  const sockets = new Set<Socket>();
  let most = 0;
  let accepted = 0;
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    accepted++;
    most = Math.max(most, sockets.size);
    socket.on('data', () => undefined);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    open: () => sockets.size,
    most: () => most,
    accepted: () => accepted,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
