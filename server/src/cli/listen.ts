import { createServer, type RequestListener, type Server, type ServerOptions } from 'node:http';
import { BaseError } from '@walletd/core';
import { expressServer, isExpressApp } from '../http/expressServer';

export interface ListenOptions {
  /** How the operator moves this listener elsewhere, for the port-in-use message: `PORT or server.port`. */
  portKnob: string;
  /** Whole headers within this long, else 408 and the connection is closed (`server.headersTimeoutMs`). */
  headersTimeoutMs?: number;
  /**
   * The whole request, body included, within this long (`server.requestTimeoutMs`): a body shorter
   * than its Content-Length, or one trickled in, gets 408 and the connection closed, not held.
   */
  requestTimeoutMs?: number;
}

/**
 * Listens or fails. Express 5's `app.listen` hands a listen error to its callback as an argument,
 * so a callback that ignores it reported "API listening" on a port another process held and ran on
 * with no API; here a listen error rejects, and `serve` exits 1 with it.
 */
export function listen(app: RequestListener, port: number, host: string, opts: ListenOptions): Promise<Server> {
  const timeouts: ServerOptions = {};
  if (opts.requestTimeoutMs !== undefined) timeouts.requestTimeout = opts.requestTimeoutMs;
  if (opts.headersTimeoutMs !== undefined) timeouts.headersTimeout = Math.min(opts.headersTimeoutMs, opts.requestTimeoutMs ?? Infinity);
  // Node checks those deadlines every `connectionsCheckingInterval` (30 s by default, which would
  // let a 30 s deadline run to 60 s): often enough that they hold to about a second.
  const shortest = Math.min(timeouts.headersTimeout ?? Infinity, timeouts.requestTimeout ?? Infinity);
  if (Number.isFinite(shortest)) timeouts.connectionsCheckingInterval = Math.max(100, Math.min(1000, Math.floor(shortest / 2)));
  // An Express app gets requests and responses born with its prototypes (http/expressServer.ts).
  const server = isExpressApp(app) ? expressServer(app, timeouts) : createServer(timeouts, app);
  return new Promise((resolve, reject) => {
    const onError = (e: NodeJS.ErrnoException) => {
      const message =
        e.code === 'EADDRINUSE'
          ? `port ${port} is in use (on ${host}): another walletd serve or another program listens there; set ${opts.portKnob}`
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
