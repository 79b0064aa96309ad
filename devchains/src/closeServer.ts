import type { Server } from 'node:http';

/**
 * Stops an adapter's HTTP server and ends every connection to it. `server.close()` alone waits
 * for each open connection to end, and once closing Node no longer times out a request in
 * progress: one caller mid-request (a reader whose call was in flight at the stop, a keep-alive
 * client that goes on reusing its socket) kept the stop waiting for ever. A local engine owes its
 * callers nothing at stop: they get a reset and retry elsewhere or not at all.
 */
export function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
