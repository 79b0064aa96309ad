import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NodeCallError } from './nodeCallError';
import { requestNode } from './requestNode';

/** A loopback server answering each request with the next of `answers` (status, body), counting them. */
async function nodeDouble(answers: [number, string][]): Promise<{ url: string; hits: () => number; server: Server }> {
  let hits = 0;
  const server = createServer((req, res) => {
    req.resume();
    const [status, body] = answers[Math.min(hits++, answers.length - 1)] as [number, string];
    res.writeHead(status, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/wallet/getnowblock`, hits: () => hits, server };
}

const request = { method: 'POST' as const, headers: {}, body: '{}', timeoutMs: 5_000, maxBytes: 1024, backoffMs: 1 };

describe('requestNode: one HTTP call to a node under the kit retry', () => {
  let server: Server | undefined;
  afterEach(() => server?.close());

  it('tries a read again after HTTP 503 and returns the answer as bytes', async () => {
    const node = await nodeDouble([
      [503, 'busy'],
      [200, '{"ok":true}'],
    ]);
    server = node.server;
    const answer = await requestNode('/wallet/getnowblock', node.url, { ...request, attempts: 3 });
    expect(answer.status).toBe(200);
    expect(Buffer.isBuffer(answer.body)).toBe(true);
    expect(answer.body.toString('utf8')).toBe('{"ok":true}');
    expect(node.hits()).toBe(2);
  });

  it('sends a publishing call once, and says what failed with the attempts made', async () => {
    const node = await nodeDouble([[502, 'bad gateway']]);
    server = node.server;
    const e = await requestNode('/wallet/broadcasthex', node.url, { ...request, attempts: 1 }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(NodeCallError);
    expect((e as NodeCallError).message).toBe('/wallet/broadcasthex failed: HTTP 502');
    expect((e as NodeCallError).node).toEqual({ method: '/wallet/broadcasthex', kind: 'http', attempts: 1 });
    expect(node.hits()).toBe(1);
  });

  it('hands back an answer that is not worth repeating (HTTP 400) after one attempt', async () => {
    const node = await nodeDouble([[400, '{"Error":"bad"}']]);
    server = node.server;
    const answer = await requestNode('/wallet/getblockbynum', node.url, { ...request, attempts: 3 });
    expect(answer.status).toBe(400);
    expect(node.hits()).toBe(1);
  });

  it('refuses an answer over the cap without retrying it', async () => {
    const node = await nodeDouble([[200, 'x'.repeat(4096)]]);
    server = node.server;
    const e = await requestNode('/wallet/getblockbynum', node.url, { ...request, attempts: 3, name: 'tron/mainnet' }).catch(
      (x: unknown) => x,
    );
    expect((e as NodeCallError).node.kind).toBe('too_large');
    expect(node.hits()).toBe(1);
  });
});
