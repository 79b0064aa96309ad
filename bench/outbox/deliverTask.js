/**
 * The graphile-worker task: the same work walletd's dispatcher does for one `api` delivery.
 * Sign the exact body bytes with HMAC-SHA256 (the `x-service-signature` header and the Standard
 * Webhooks headers, as server/src/webhooks/secrets/signing.ts does), POST it with undici's `request`
 * through a keep-alive Agent sized like walletd's HttpSender, with the same 10 s deadline, read
 * the response body and fail (so graphile-worker retries) on anything but 2xx.
 *
 * undici is the copy @walletd/server uses (v7), so both systems send with the same client.
 */
const { createHmac } = require('node:crypto');
const { dirname } = require('node:path');

const undici = require(require.resolve('undici', { paths: [dirname(require.resolve('@walletd/server'))] }));

function standardWebhooksKey(secret) {
  if (secret.startsWith('whsec_')) {
    const b64 = secret.slice(6);
    if (/^[A-Za-z0-9+/]+={0,2}$/.test(b64) && b64.length % 4 === 0) return Buffer.from(b64, 'base64');
  }
  return Buffer.from(secret, 'utf8');
}

function makeDeliverTask({ signingSecret, concurrency, timeoutMs = 10_000 }) {
  const agent = new undici.Agent({
    connections: Math.max(4, Math.min(concurrency, 128)),
    keepAliveTimeout: 30_000,
    connectTimeout: timeoutMs,
  });
  const key = standardWebhooksKey(signingSecret);

  async function deliver(payload) {
    const { url, eventId, body } = payload;
    const timestamp = String(Math.floor(Date.now() / 1000));
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'graphile-bench/1',
      'x-service-signature': `sha256=${createHmac('sha256', signingSecret).update(body).digest('hex')}`,
      'webhook-id': eventId,
      'webhook-timestamp': timestamp,
      'webhook-signature': `v1,${createHmac('sha256', key).update(`${eventId}.${timestamp}.${body}`).digest('base64')}`,
    };
    const res = await undici.request(url, { method: 'POST', headers, body, dispatcher: agent, signal: AbortSignal.timeout(timeoutMs) });
    await res.body.text();
    if (res.statusCode < 200 || res.statusCode > 299) throw new Error(`HTTP ${res.statusCode}`);
  }

  return { deliver, close: () => agent.close() };
}

module.exports = { makeDeliverTask };
