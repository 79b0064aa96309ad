/**
 * The webhook receiver both systems POST to: node:http on 127.0.0.1, 200 as soon as the body has
 * been read. It runs in the bench's main process, so its arrival times (performance.now()) share
 * one clock with the producer's commit times.
 *
 * A POST is identified by its `webhook-id` header (the event id; walletd sends it, and the
 * graphile-worker task sends the same Standard Webhooks headers). Only the first arrival per event
 * is timed; repeats are counted as duplicates.
 */
const http = require('node:http');
const { performance } = require('node:perf_hooks');

async function startReceiver() {
  /** event id -> performance.now() when the request's headers arrived */
  let arrivals = new Map();
  let duplicates = 0;
  let unsigned = 0;
  let waiter = null;

  const server = http.createServer((req, res) => {
    const at = performance.now();
    const id = req.headers['webhook-id'];
    if (!req.headers['x-service-signature'] || !req.headers['webhook-signature']) unsigned += 1;
    if (typeof id === 'string') {
      if (arrivals.has(id)) duplicates += 1;
      else arrivals.set(id, at);
    }
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-length': '0' }).end();
      if (waiter && arrivals.size >= waiter.count) {
        const w = waiter;
        waiter = null;
        w.resolve();
      }
    });
  });
  server.keepAliveTimeout = 60_000;
  server.headersTimeout = 65_000;
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();

  return {
    url: `http://127.0.0.1:${port}/hook`,
    /** Forgets everything seen so far (between warm-up and measurement, between scenarios). */
    reset() {
      arrivals = new Map();
      duplicates = 0;
      unsigned = 0;
    },
    snapshot: () => ({ arrivals, duplicates, unsigned }),
    /** Resolves once `count` distinct events have arrived; rejects after `timeoutMs`. */
    waitFor(count, timeoutMs) {
      if (arrivals.size >= count) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiter = null;
          reject(new Error(`timed out after ${timeoutMs} ms with ${arrivals.size}/${count} events received`));
        }, timeoutMs);
        waiter = {
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        };
      });
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

module.exports = { startReceiver };
