import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWalletdClient, isWalletdApiError, ok, type RetryInfo, retryAfterMs } from '@walletd/client';

type Answer = { status: number; headers?: Record<string, string>; body?: unknown };

/** A real HTTP server on loopback that answers from a script and records what it got. */
async function scripted(answers: Answer[]) {
  const got: { method: string; url: string; body: string }[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      got.push({ method: req.method ?? '', url: req.url ?? '', body });
      const a = answers[Math.min(got.length - 1, answers.length - 1)] as Answer;
      res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
      res.end(JSON.stringify(a.body ?? {}));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, got, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const limited = (seconds: string): Answer => ({
  status: 429,
  headers: { 'retry-after': seconds },
  body: { statusCode: 429, error: 'Too Many Requests', message: 'Rate limit', code: 'rate_limited' },
});
const wallet = { id: 7, name: 'w', chain: 'ethereum', network: 'devnet' };

describe('the client retries', () => {
  const retries: RetryInfo[] = [];
  const client = (url: string, maxRetries = 2) =>
    createWalletdClient({ baseUrl: url, apiKey: 'svc_live_x', retry: { maxRetries, baseDelayMs: 1, onRetry: (r) => retries.push(r) } });
  beforeEach(() => {
    retries.length = 0;
  });

  it('a read after 429 and 503, waiting what Retry-After says, and sends the key', async () => {
    const s = await scripted([limited('1'), { status: 503, headers: { 'retry-after': '0' } }, { status: 200, body: wallet }]);
    try {
      expect(await ok(client(s.url).GET('/wallets/{id}', { params: { path: { id: 7 } } }))).toEqual(wallet);
      expect(s.got.map((g) => `${g.method} ${g.url}`)).toEqual(Array(3).fill('GET /v1/wallets/7'));
      expect(retries.map((r) => [r.status, r.delayMs])).toEqual([
        [429, 1000],
        [503, 0],
      ]);
    } finally {
      await s.close();
    }
  });

  it('a bounded number of times, then returns the last answer as a typed error', async () => {
    const s = await scripted([{ status: 502 }]);
    try {
      const e = await ok(client(s.url, 1).GET('/wallets')).catch((x: unknown) => x);
      expect(isWalletdApiError(e) && [e.status, e.code]).toEqual([502, 'internal']);
      expect(s.got).toHaveLength(2);
    } finally {
      await s.close();
    }
  });

  it('not a Retry-After longer than maxRetryAfterMs: the 429 comes back with its seconds', async () => {
    const s = await scripted([limited('3600')]);
    try {
      const e = await ok(client(s.url).GET('/wallets')).catch((x: unknown) => x);
      expect(isWalletdApiError(e, 'rate_limited') && e.details.retryAfterSeconds).toBe(3600);
      expect(s.got).toHaveLength(1);
    } finally {
      await s.close();
    }
  });

  it('a value-moving write with the idempotency key it filled, the same key each time', async () => {
    const s = await scripted([limited('0'), { status: 201, body: { id: 3 } }]);
    try {
      const c = client(s.url);
      await ok(
        c.POST('/wallets/{id}/withdrawals', { params: { path: { id: 7 } }, body: { asset: 'ETH', toAddress: '0xab', amount: '1' } }),
      );
      const keys = s.got.map((g) => JSON.parse(g.body).idempotencyKey);
      expect(keys).toHaveLength(2);
      expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
      expect(keys[1]).toBe(keys[0]);
      // The caller's own key is kept.
      await ok(c.POST('/wallets/{id}/withdrawals', { params: { path: { id: 7 } }, body: { asset: 'ETH', idempotencyKey: 'mine-1' } }));
      expect(JSON.parse(s.got[2]?.body as string).idempotencyKey).toBe('mine-1');
    } finally {
      await s.close();
    }
  });

  it('never a write without an idempotency key (it might have been done)', async () => {
    const s = await scripted([{ status: 503 }, { status: 201, body: wallet }]);
    try {
      const e = await ok(client(s.url).POST('/wallets', { body: { name: 'w', chain: 'ethereum', network: 'devnet' } })).catch(
        (x: unknown) => x,
      );
      expect(isWalletdApiError(e) && e.status).toBe(503);
      expect(s.got).toHaveLength(1);
      expect(retries).toEqual([]);
    } finally {
      await s.close();
    }
  });
});

describe('errors typed by code', () => {
  it('parses the policy ids and insufficient_funds fields, with the request id', async () => {
    const s = await scripted([
      {
        status: 403,
        headers: { 'x-request-id': 'req-1' },
        body: { statusCode: 403, error: 'Forbidden', message: 'needs approval', code: 'policy_approval_required', policyIds: '4,9' },
      },
      {
        status: 422,
        body: { statusCode: 422, error: 'x', message: 'short', code: 'insufficient_funds', available: '0.1', reservedBy: '12' },
      },
    ]);
    try {
      const c = createWalletdClient({ baseUrl: `${s.url}/v1/`, apiKey: 'k' });
      const prepare = () => ok(c.POST('/wallets/{id}/withdrawals', { params: { path: { id: 1 } }, body: { asset: 'ETH' } }));
      const e1 = await prepare().catch((x: unknown) => x);
      if (!isWalletdApiError(e1, 'policy_approval_required')) throw e1;
      expect([e1.status, e1.details.policyIds, e1.requestId, e1.message]).toEqual([403, ['4', '9'], 'req-1', 'needs approval']);
      const e2 = await prepare().catch((x: unknown) => x);
      if (!isWalletdApiError(e2) || !e2.is('insufficient_funds')) throw e2;
      expect(e2.details).toEqual({ available: '0.1', reservedBy: ['12'] });
      expect(s.got.map((g) => g.url)).toEqual(['/v1/wallets/1/withdrawals', '/v1/wallets/1/withdrawals']);
    } finally {
      await s.close();
    }
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(retryAfterMs('2')).toBe(2000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(retryAfterMs('soon')).toBeUndefined();
    expect(retryAfterMs(null)).toBeUndefined();
  });
});
