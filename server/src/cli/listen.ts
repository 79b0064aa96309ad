import { createServer, type RequestListener, type Server } from 'node:http';
import { BaseError } from '@walletd/core';
import { expressServer, isExpressApp } from '../http/expressServer';

/**
 * Listens or fails. Express 5's `app.listen` hands a listen error to its callback as an argument,
 * so a callback that ignores it reported "API listening" on a port another process held and ran on
 * with no API; here a listen error rejects, and `serve` exits 1 with it.
 */
export function listen(app: RequestListener, port: number, host: string): Promise<Server> {
  // An Express app gets requests and responses born with its prototypes (http/expressServer.ts).
  const server = isExpressApp(app) ? expressServer(app) : createServer(app);
  return new Promise((resolve, reject) => {
    const onError = (e: NodeJS.ErrnoException) => {
      const message =
        e.code === 'EADDRINUSE'
          ? `port ${port} is in use (on ${host}): another walletd serve or another program listens there; set PORT or server.port`
          : `cannot listen on ${host}:${port}: ${e.message}`;
      reject(new BaseError('unavailable', message, { cause: e }));
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve(server);
    });
  });
}
