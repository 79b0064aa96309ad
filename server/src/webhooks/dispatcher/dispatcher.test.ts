import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { MasterKey, createLogger } from '@walletd/core';
import {
  call,
  createTestDatabase,
  eventually,
  recordDeposit,
  seedCompany,
  startReceiver,
  startTestApp,
  testConfig,
  type Seeded,
  type TestApp,
  type TestDatabase,
  type TestReceiver,
} from '@walletd/test-harness';
import { loadPlugins } from '../../platform/plugins';
import { claimDue, recordAttempts } from './deliveryStore';
import { createDispatcher, type Dispatcher } from './dispatcher';

const plugins = loadPlugins();

let t: TestDatabase;
let app: TestApp;
let rx: TestReceiver;
let dispatcher: Dispatcher;
const masterKey = new MasterKey(randomBytes(32));
const TIMEOUT_MS = 400;

beforeAll(async () => {
  t = await createTestDatabase();
  app = await startTestApp(t.db, { webhooks: { allowCidrs: ['127.0.0.0/8'] } }, masterKey);
  rx = await startReceiver();
  const config = testConfig({ webhooks: { allowCidrs: ['127.0.0.0/8'], timeoutMs: TIMEOUT_MS, telegramApiBase: rx.url } });
  dispatcher = createDispatcher({ config, logger: createLogger({ level: 'silent' }), db: t.db, masterKey, plugins });
});
afterAll(async () => {
  await dispatcher.stop();
  await rx.close();
  await app.close();
  await t.drop();
});
beforeEach(async () => {
  // Each test starts with no due work left over from the one before.
  await t.db('webhook_deliveries').where({ status: 'pending' }).update({ status: 'failed', next_attempt_at: null });
  rx.requests.length = 0;
  rx.respond((_r, res) => {
    res.writeHead(200).end('ok');
  });
});

async function setup(body: Record<string, unknown> = {}): Promise<{ s: Seeded; walletId: number; hookId: number; secret: string }> {
  const s = await seedCompany(t.db);
  const walletId = (
    await call(app.url, 'POST', '/v1/wallets', { key: s.rootKey, body: { name: 'w', chain: 'ethereum', network: 'sepolia' } })
  ).body.id;
  const created = await call(app.url, 'POST', '/v1/webhooks', {
    key: s.rootKey,
    body: { type: 'api', config: { url: `${rx.url}/hook` }, events: ['*'], ...body },
  });
  return { s, walletId, hookId: created.body.id, secret: created.body.signingSecret };
}

const delivery = async (hookId: number) => t.db('webhook_deliveries').where({ webhook_id: hookId }).orderBy('id', 'desc').first();
/** Makes a scheduled retry due now and returns the delay the dispatcher had chosen. */
async function fastForward(hookId: number): Promise<number> {
  const d = await delivery(hookId);
  await t.db('webhook_deliveries').where({ id: d.id }).update({ next_attempt_at: t.db.fn.now() });
  return (d.next_attempt_at.getTime() - d.updated_at.getTime()) / 1000;
}

describe('dispatcher', () => {
  it('posts the exact event bytes with a signature an independent HMAC (openssl) agrees with', async () => {
    const { s, walletId, hookId, secret } = await setup();
    const { envelope } = await recordDeposit(t.db, s.companyId, walletId);
    expect(await dispatcher.runOnce()).toBe(1);
    const [req] = rx.requests;
    expect(req?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(req?.rawBody ?? '')).toEqual(envelope);
    const openssl = execFileSync('openssl', ['dgst', '-sha256', '-hmac', secret], { input: req?.rawBody }).toString();
    const hex = openssl.trim().split(' ').pop();
    expect(req?.headers['x-service-signature']).toBe(`sha256=${hex}`);
    expect(req?.headers['webhook-id']).toBe(envelope.id);
    expect(req?.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const d = await delivery(hookId);
    expect(d).toMatchObject({
      status: 'delivered',
      attempts: 1,
      response_code: 200,
      response_body: 'ok',
      last_error: null,
      next_attempt_at: null,
    });
  });

  it('retries with 5, 10, 20, 40 s backoff and succeeds on the fifth attempt with the same id and bytes', async () => {
    const { s, walletId, hookId } = await setup();
    await recordDeposit(t.db, s.companyId, walletId);
    rx.respond((_r, res, i) => {
      res.writeHead(i < 4 ? 500 : 204).end(i < 4 ? 'nope' : undefined);
    });
    const delays: number[] = [];
    for (let i = 0; i < 4; i++) {
      expect(await dispatcher.runOnce()).toBe(1);
      const d = await delivery(hookId);
      expect(d).toMatchObject({ status: 'pending', attempts: i + 1, response_code: 500, last_error: 'HTTP 500', response_body: 'nope' });
      delays.push(await fastForward(hookId));
    }
    expect(delays).toEqual([5, 10, 20, 40]);
    expect(await dispatcher.runOnce()).toBe(1);
    expect(await delivery(hookId)).toMatchObject({
      status: 'delivered',
      attempts: 5,
      response_code: 204,
      response_body: null,
      next_attempt_at: null,
    });
    expect(new Set(rx.requests.map((r) => r.rawBody)).size).toBe(1);
    expect(new Set(rx.requests.map((r) => r.headers['webhook-id'])).size).toBe(1);
  });

  it('ends failed after the fifth failed attempt', async () => {
    const { s, walletId, hookId } = await setup();
    await recordDeposit(t.db, s.companyId, walletId);
    rx.respond((_r, res) => {
      res.writeHead(503).end();
    });
    for (let i = 0; i < 5; i++) {
      await dispatcher.runOnce();
      if (i < 4) await fastForward(hookId);
    }
    expect(await delivery(hookId)).toMatchObject({ status: 'failed', attempts: 5, response_code: 503, next_attempt_at: null });
    expect(await dispatcher.runOnce()).toBe(0);
    expect(rx.requests).toHaveLength(5);
  });

  it('honours Retry-After on 429 (seconds and HTTP date), never sooner than the backoff', async () => {
    const { s, walletId, hookId } = await setup();
    await recordDeposit(t.db, s.companyId, walletId);
    rx.respond((_r, res, i) => {
      const after = i === 0 ? '30' : i === 1 ? new Date(Date.now() + 120_000).toUTCString() : '1';
      res.writeHead(429, { 'retry-after': after }).end();
    });
    await dispatcher.runOnce();
    expect(await fastForward(hookId)).toBe(30);
    await dispatcher.runOnce();
    const second = await fastForward(hookId);
    expect(second).toBeGreaterThanOrEqual(118);
    expect(second).toBeLessThanOrEqual(121);
    await dispatcher.runOnce();
    expect(await fastForward(hookId)).toBe(20); // Retry-After 1 < backoff 20
  });

  it('decides by the status code even when the 2xx body stalls past the deadline', async () => {
    const { s, walletId, hookId } = await setup();
    await recordDeposit(t.db, s.companyId, walletId);
    rx.respond((_r, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('accepted, still talking');
      setTimeout(() => res.end(), TIMEOUT_MS * 3);
    });
    await dispatcher.runOnce();
    expect(await delivery(hookId)).toMatchObject({
      status: 'delivered',
      response_code: 200,
      last_error: null,
      response_body: 'accepted, still talking',
    });
  });

  it('records an attempt only under the claim that made it (a stale claim changes nothing)', async () => {
    const { s, walletId, hookId } = await setup();
    await recordDeposit(t.db, s.companyId, walletId);
    const [first] = await claimDue(t.db, 10, 60_000, 8);
    // Its lease ends; another dispatcher claims and delivers.
    await t
      .db('webhook_deliveries')
      .where({ id: first?.id })
      .update({ next_attempt_at: t.db.raw("now() - interval '1 second'") });
    const [second] = await claimDue(t.db, 10, 60_000, 8);
    expect(second?.id).toBe(first?.id);
    const outcome = (lease: number, ok: boolean) => ({
      id: first?.id as number,
      webhookId: hookId,
      leaseUs: lease,
      ok,
      responseCode: ok ? 200 : 500,
      responseBody: null,
      error: ok ? null : 'HTTP 500',
      retryInSeconds: 5,
    });
    await recordAttempts(t.db, [outcome(second?.leaseUs as number, true)]);
    await recordAttempts(t.db, [outcome(first?.leaseUs as number, false)]);
    expect(await delivery(hookId)).toMatchObject({ status: 'delivered', attempts: 1, response_code: 200 });
  });

  it('treats a redirect as a failure and does not follow it', async () => {
    const { s, walletId, hookId } = await setup();
    await recordDeposit(t.db, s.companyId, walletId);
    rx.respond((r, res) => {
      if (r.path === '/hook') res.writeHead(302, { location: `${rx.url}/elsewhere` }).end();
      else res.writeHead(200).end();
    });
    await dispatcher.runOnce();
    expect(rx.requests.map((r) => r.path)).toEqual(['/hook']);
    expect(await delivery(hookId)).toMatchObject({ status: 'pending', response_code: 302, last_error: 'HTTP 302' });
  });

  it('gives up on a slow receiver at the timeout, recording no response code', async () => {
    const { s, walletId, hookId } = await setup();
    await recordDeposit(t.db, s.companyId, walletId);
    rx.respond(async (_r, res) => {
      await new Promise((r) => setTimeout(r, TIMEOUT_MS * 4));
      if (!res.destroyed) res.writeHead(200).end();
    });
    await dispatcher.runOnce();
    expect(await delivery(hookId)).toMatchObject({
      status: 'pending',
      attempts: 1,
      response_code: null,
      last_error: `timeout after ${TIMEOUT_MS} ms`,
    });
  });

  it('takes an interim 1xx for no answer: 103 Early Hints, then silence, is a timeout with no response code', async () => {
    const { s, walletId, hookId } = await setup();
    await recordDeposit(t.db, s.companyId, walletId);
    rx.respond(async (_r, res) => {
      res.writeEarlyHints({ link: '</style.css>; rel=preload; as=style' });
      await new Promise((r) => setTimeout(r, TIMEOUT_MS * 4));
      if (!res.destroyed) res.writeHead(200).end();
    });
    await dispatcher.runOnce();
    expect(await delivery(hookId)).toMatchObject({
      status: 'pending',
      response_code: null,
      last_error: `timeout after ${TIMEOUT_MS} ms`,
    });
  });

  it('stores the first 2 KB of the body on a UTF-8 boundary, with secrets redacted', async () => {
    const { s, walletId, hookId, secret } = await setup();
    await recordDeposit(t.db, s.companyId, walletId);
    // Once redacted (the secret becomes "[redacted]"): 2047 ASCII bytes, then a 3-byte character
    // straddling the 2 KB limit.
    const body = `${secret} ${'a'.repeat(2046 - '[redacted]'.length)}€€€${'b'.repeat(3000)}`;
    rx.respond((_r, res) => {
      res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(body);
    });
    await dispatcher.runOnce();
    const d = await delivery(hookId);
    expect(Buffer.byteLength(d.response_body)).toBeLessThanOrEqual(2048);
    expect(d.response_body).not.toContain(secret);
    expect(d.response_body.startsWith('[redacted] aaa')).toBe(true);
    expect(d.response_body.endsWith('a')).toBe(true);
    expect(d.response_body).not.toContain('\uFFFD');
    const api = await call(app.url, 'GET', `/v1/webhooks/${hookId}/deliveries/${d.id}`, { key: s.rootKey });
    expect(api.body.delivery.responseBody).toBe(d.response_body);
  });

  it('records a batch whose receiver answered with a NUL byte (PostgreSQL text cannot hold one), once each', async () => {
    // Two companies' deliveries in one claim: a NUL in one stored body made the batch's single
    // UPDATE fail, both outcomes were dropped, both events POSTed again after the lease.
    const binary = await setup({ config: { url: `${rx.url}/binary` } });
    const plain = await setup();
    await recordDeposit(t.db, binary.s.companyId, binary.walletId);
    await recordDeposit(t.db, plain.s.companyId, plain.walletId);
    rx.respond((r, res) => {
      res.writeHead(200).end(r.path === '/binary' ? Buffer.from([0x6f, 0x6b, 0x00, 0x1f, 0x8b]) : 'fine');
    });
    expect(await dispatcher.runOnce()).toBe(2);
    const [b, p] = [await delivery(binary.hookId), await delivery(plain.hookId)];
    expect([b.status, b.attempts, p.status, p.attempts]).toEqual(['delivered', 1, 'delivered', 1]);
    expect(b.response_body).toBe('ok\uFFFD\u001f\uFFFD');
    expect(p.response_body).toBe('fine');
    expect(rx.requests.map((r) => r.path).sort()).toEqual(['/binary', '/hook']);
  });

  it('redacts an api signing secret that straddles the 2 KB cut (redacted before cutting)', async () => {
    const { s, walletId, hookId, secret } = await setup();
    await recordDeposit(t.db, s.companyId, walletId);
    // The secret starts 28 characters before the limit: cutting first would keep 28 of its characters.
    const body = `${'a'.repeat(2048 - 28)}${secret}${'b'.repeat(500)}`;
    rx.respond((_r, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(body);
    });
    await dispatcher.runOnce();
    const d = await delivery(hookId);
    expect(d.response_body).not.toContain(secret.slice(0, 8));
    expect(d.response_body).toBe(`${'a'.repeat(2020)}[redacted]${'b'.repeat(2048 - 2030)}`);
  });

  it('redacts a signing secret whose beginning is cut off at the end of what is read', async () => {
    const { s, walletId, hookId, secret } = await setup();
    await recordDeposit(t.db, s.companyId, walletId);
    // Echoes shrink when redacted (50 characters to 10), pulling the end of what is read (3 KB,
    // cut 20 characters into a secret) inside the 2 KB that is kept.
    const echoes = `${secret} `.repeat(30);
    const fill = 'c'.repeat(3072 - echoes.length - 20);
    rx.respond((_r, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(`${echoes}${fill}${secret}${'d'.repeat(4000)}`);
    });
    await dispatcher.runOnce();
    const d = await delivery(hookId);
    expect(d.response_body).not.toContain(secret.slice(0, 8));
    expect(d.response_body).toBe(`${'[redacted] '.repeat(30)}${fill}[redacted]`);
  });

  it('sends waiting deliveries to the new URL after a PATCH and signs with a rotated secret at once', async () => {
    const { s, walletId, hookId } = await setup();
    await recordDeposit(t.db, s.companyId, walletId);
    rx.respond((r, res) => {
      res.writeHead(r.path === '/hook' ? 500 : 200).end();
    });
    await dispatcher.runOnce();
    await call(app.url, 'PATCH', `/v1/webhooks/${hookId}`, { key: s.rootKey, body: { config: { url: `${rx.url}/moved` } } });
    const rotated = (await call(app.url, 'POST', `/v1/webhooks/${hookId}/rotate-secret`, { key: s.rootKey, body: {} })).body.signingSecret;
    await fastForward(hookId);
    await dispatcher.runOnce();
    expect(rx.requests.map((r) => r.path)).toEqual(['/hook', '/moved']);
    const last = rx.requests[1];
    const hex = execFileSync('openssl', ['dgst', '-sha256', '-hmac', rotated], { input: last?.rawBody }).toString().trim().split(' ').pop();
    expect(last?.headers['x-service-signature']).toBe(`sha256=${hex}`);
    expect((await delivery(hookId)).status).toBe('delivered');
  });

  it('signs with a rotated secret even when the rotation left updated_at as it was (same millisecond)', async () => {
    const { s, walletId, hookId } = await setup();
    await recordDeposit(t.db, s.companyId, walletId);
    await dispatcher.runOnce();
    const before = (await t.db('webhooks').where({ id: hookId }).first()).updated_at;
    const rotated = (await call(app.url, 'POST', `/v1/webhooks/${hookId}/rotate-secret`, { key: s.rootKey, body: {} })).body.signingSecret;
    // A PATCH and a rotation in one millisecond leave one updated_at for two different secrets.
    await t.db('webhooks').where({ id: hookId }).update({ updated_at: before });
    await recordDeposit(t.db, s.companyId, walletId);
    await dispatcher.runOnce();
    const last = rx.requests[1];
    const hex = execFileSync('openssl', ['dgst', '-sha256', '-hmac', rotated], { input: last?.rawBody }).toString().trim().split(' ').pop();
    expect(last?.headers['x-service-signature']).toBe(`sha256=${hex}`);
  });

  it('sends nothing while a webhook is disabled and resumes when enabled', async () => {
    const { s, walletId, hookId } = await setup();
    await recordDeposit(t.db, s.companyId, walletId);
    await call(app.url, 'PATCH', `/v1/webhooks/${hookId}`, { key: s.rootKey, body: { enabled: false } });
    expect(await dispatcher.runOnce()).toBe(0);
    await recordDeposit(t.db, s.companyId, walletId);
    expect(await t.db('webhook_deliveries').where({ webhook_id: hookId }).count('* as n')).toEqual([{ n: 1 }]);
    await call(app.url, 'PATCH', `/v1/webhooks/${hookId}`, { key: s.rootKey, body: { enabled: true } });
    expect(await dispatcher.runOnce()).toBe(1);
    expect(rx.requests).toHaveLength(1);
  });

  it('refuses at connect time a host name that resolves to a private address', async () => {
    const strictDispatcher = createDispatcher({
      config: testConfig(),
      logger: createLogger({ level: 'silent' }),
      db: t.db,
      masterKey,
      plugins,
    });
    const { s, walletId, hookId } = await setup();
    // Accepted at registration (a name, https); "localhost" resolves to loopback when connecting.
    await t
      .db('webhooks')
      .where({ id: hookId })
      .update({ config: { url: `https://localhost:${rx.port}/hook` } });
    await recordDeposit(t.db, s.companyId, walletId);
    await strictDispatcher.runOnce();
    await strictDispatcher.stop();
    const d = await delivery(hookId);
    expect(d.response_code).toBeNull();
    expect(d.last_error).toMatch(
      /^destination refused: destination localhost resolves to a refused address: (127\.0\.0\.1 is a loopback|::1 is a loopback)/,
    );
    expect(rx.requests).toHaveLength(0);
  });

  it('does not let a slow receiver hold back other deliveries (pipelined dispatch)', async () => {
    const slow = await setup();
    const fast = await setup();
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => {
      release = r;
    });
    rx.respond(async (r, res) => {
      if (r.headers['webhook-id'] === slowEvent) await held;
      res.writeHead(200).end();
    });
    const slowEvent = (await recordDeposit(t.db, slow.s.companyId, slow.walletId)).envelope.id;
    const live = createDispatcher({
      config: testConfig({ webhooks: { allowCidrs: ['127.0.0.0/8'], timeoutMs: 20_000, pollIntervalMs: 20 } }),
      logger: createLogger({ level: 'silent' }),
      db: t.db,
      masterKey,
      plugins,
    });
    live.start();
    try {
      await rx.waitForRequests(1);
      await recordDeposit(t.db, fast.s.companyId, fast.walletId);
      // The fast webhook's delivery completes while the slow receiver still holds its request.
      const fastDone = await eventually(
        () => delivery(fast.hookId),
        (d) => d.status === 'delivered',
      );
      expect(fastDone.status).toBe('delivered');
      expect((await delivery(slow.hookId)).status).toBe('pending');
    } finally {
      release();
      await live.stop();
    }
    expect((await delivery(slow.hookId)).status).toBe('delivered');
  });

  it('delivers chat-message and Slack kinds as short texts, redacting their tokens', async () => {
    const s = await seedCompany(t.db);
    const walletId = (
      await call(app.url, 'POST', '/v1/wallets', { key: s.rootKey, body: { name: 'w', chain: 'ethereum', network: 'sepolia' } })
    ).body.id;
    const token = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
    const tg = await call(app.url, 'POST', '/v1/webhooks', {
      key: s.rootKey,
      body: { type: 'telegram', config: { botToken: token, chatId: 777 }, events: ['*'] },
    });
    const slackUrl = `${rx.url}/services/T1/B1/SLACKSECRET123456`;
    await call(app.url, 'POST', '/v1/webhooks', { key: s.rootKey, body: { type: 'slack', config: { url: slackUrl }, events: ['*'] } });
    rx.respond((r, res) => {
      // The fake Telegram API echoes the path (with the token) in an error, as a proxy might.
      if (r.path.includes('/bot')) res.writeHead(400).end(`bad request for ${r.path}`);
      else res.writeHead(200).end('ok');
    });
    await recordDeposit(t.db, s.companyId, walletId, 'deposit.confirmed', '2.25');
    expect(await dispatcher.runOnce()).toBe(2);
    const tgReq = rx.requests.find((r) => r.path.startsWith('/bot'));
    expect(tgReq?.path).toBe(`/bot${token}/sendMessage`);
    expect(JSON.parse(tgReq?.rawBody ?? '{}')).toMatchObject({
      chat_id: 777,
      text: expect.stringMatching(/^Deposit confirmed: 2\.25 ETH to 0x22222222…222222 on ethereum\/sepolia/),
    });
    const slackReq = rx.requests.find((r) => r.path.startsWith('/services'));
    expect(JSON.parse(slackReq?.rawBody ?? '{}').text).toMatch(/^Deposit confirmed: 2\.25 ETH/);
    const d = await delivery(tg.body.id);
    expect(d.response_body).toBe('bad request for /bot[redacted]/sendMessage');
  });

  it('redacts a Slack URL in every form the receiver echoes: whole, path alone, token alone, encoded, JSON-escaped', async () => {
    const s = await seedCompany(t.db);
    const walletId = (
      await call(app.url, 'POST', '/v1/wallets', { key: s.rootKey, body: { name: 'w', chain: 'ethereum', network: 'sepolia' } })
    ).body.id;
    const token = 'Zq8xSLACKTOKEN4f7Hk2pW9m';
    const slackUrl = `${rx.url}/services/T0123ABCD/B0456EFGH/${token}`;
    const hook = await call(app.url, 'POST', '/v1/webhooks', {
      key: s.rootKey,
      body: { type: 'slack', config: { url: slackUrl }, events: ['*'] },
    });
    rx.respond((r, res) => {
      const echoes = [
        `path ${r.path}`,
        `token ${token}`,
        `url ${slackUrl}`,
        `encoded ${encodeURIComponent(slackUrl)}`,
        `json ${JSON.stringify(slackUrl).replaceAll('/', '\\/')}`,
      ];
      res.writeHead(404).end(echoes.join('\n'));
    });
    await recordDeposit(t.db, s.companyId, walletId);
    expect(await dispatcher.runOnce()).toBe(1);
    const d = await delivery(hook.body.id);
    expect(d.response_body).not.toContain(token);
    expect(d.response_body).not.toContain(token.slice(0, 8));
    expect(d.response_body.split('\n')).toEqual([
      'path [redacted]',
      'token [redacted]',
      'url [redacted]',
      'encoded [redacted]',
      'json "[redacted]"',
    ]);
  });
});
