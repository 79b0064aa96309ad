import {
  type Anvil,
  GENUINE,
  type ReceivedRequest,
  type Seeded,
  type TestDatabase,
  type TestReceiver,
  type WalletdProcess,
  call,
  createTestDatabase,
  eventually,
  serveWithConfig,
  seedCompany,
  signatureChecks,
  startAnvil,
  startReceiver,
} from '@walletd/test-harness';

/** webhooks.retryBaseMs: the 5/10/20/40 s schedule becomes 0.2/0.4/0.8/1.6 s. */
const BASE_MS = 200;
const LEASE_MS = 60_000;

interface Delivery {
  id: number;
  eventId: string;
  status: string;
  attempts: number;
  responseCode: number | null;
  lastError: string | null;
  nextAttemptAt?: string;
  updatedAt: string;
}

/**
 * The retry rules of webhook delivery as a receiver meets them: the real `walletd serve` (API,
 * indexer following anvil, dispatcher), events from real deposits, real receivers on loopback. The
 * retry schedule is read from the deliveries log while the next attempt is in flight (the
 * receiver holds its answer until it has read it): the attempt before it recorded `updatedAt`,
 * this attempt's claim set `nextAttemptAt` to its start plus the lease, both by the database's
 * clock. Every request is verified as a receiver would, with @walletd/receiver.
 */
describe('webhook retries against walletd serve', () => {
  let t: TestDatabase;
  let anvil: Anvil;
  let proc: WalletdProcess;
  let base: string;
  const receivers: TestReceiver[] = [];

  beforeAll(async () => {
    t = await createTestDatabase();
    anvil = await startAnvil();
    ({ proc, base } = await serveWithConfig(t.url, {
      bootstrap: false,
      devnet: { enabled: false },
      webhooks: { allowCidrs: ['127.0.0.0/8'], pollIntervalMs: 50, retryBaseMs: BASE_MS, leaseMs: LEASE_MS },
      chains: [{ chain: 'ethereum', network: 'devnet', rpcUrl: anvil.url, confirmations: 2, startBlock: 0, pollIntervalMs: 100 }],
    }));
  });
  afterAll(async () => {
    proc?.child.kill('SIGTERM');
    await proc?.exited;
    for (const r of receivers) await r.close();
    await anvil?.stop();
    await t?.drop();
  });

  const receiver = async () => {
    const r = await startReceiver();
    receivers.push(r);
    return r;
  };

  /** A company with one ethereum/devnet wallet and address, and an API bound to its key. */
  async function company(name: string) {
    const s: Seeded = await seedCompany(t.db, 'paid', name);
    const api = (method: string, path: string, body?: unknown) => call(base, method, `/v1${path}`, { key: s.rootKey, body });
    const wallet = (await api('POST', '/wallets', { name: 'w', chain: 'ethereum', network: 'devnet' })).body as { id: number };
    const address = (await api('POST', `/wallets/${wallet.id}/addresses`)).body.address as string;
    const hook = async (body: Record<string, unknown>) => {
      const r = await api('POST', '/webhooks', { type: 'api', events: ['*'], ...body });
      expect(r.status).toBe(201);
      return r.body as { id: number; signingSecret: string };
    };
    const deliveries = async (webhookId: number) =>
      (await api('GET', `/webhooks/${webhookId}/deliveries?limit=100`)).body.deliveries as Delivery[];
    return { api, wallet, address, hook, deliveries };
  }

  /** The process's log lines about one delivery: [message, attempt, retryInSeconds]. */
  const logOf = (deliveryId: number) =>
    proc
      .stderr()
      .split('\n')
      .flatMap((line) => {
        try {
          return [JSON.parse(line) as { msg: string; deliveryId?: number; attempt?: number; retryInSeconds?: number }];
        } catch {
          return []; // not JSON, or the line being written
        }
      })
      .filter((l) => l.deliveryId === deliveryId)
      .map((l) => [l.msg, l.attempt, l.retryInSeconds]);
  /** The log is written asynchronously: wait for `n` lines about the delivery. */
  const logged = (deliveryId: number, n: number) =>
    eventually(
      async () => logOf(deliveryId),
      (l) => l.length >= n,
    );

  /** How long the delivery waited between the attempt recorded last and the claim now in flight (ms). */
  const waited = (d: Delivery) => Date.parse(d.nextAttemptAt as string) - LEASE_MS - Date.parse(d.updatedAt);

  it('fails five times, each retry no sooner than the doubling backoff, then ends failed; every attempt the same bytes and id', async () => {
    const c = await company('Retries');
    const rx = await receiver();
    const hook = await c.hook({ config: { url: `${rx.url}/hook` } });
    const seen: Delivery[] = [];
    rx.respond(async (_r, res, i) => {
      if (i > 0) seen.push(((await c.deliveries(hook.id)) as Delivery[])[0] as Delivery);
      res.writeHead(500, { 'content-type': 'text/plain' }).end('nope');
    });
    await anvil.send(c.address, 10n ** 18n);
    await rx.waitForRequests(5);
    const [final] = await eventually(
      () => c.deliveries(hook.id),
      (list) => list[0]?.status === 'failed',
    );
    // The fifth failure in a row also backs the endpoint off (its circuit breaker): the record says so.
    expect(final).toMatchObject({
      status: 'failed',
      attempts: 5,
      responseCode: 500,
      lastError: expect.stringMatching(/^HTTP 500 \(endpoint backed off until \S+Z after 5 failed attempts in a row\)$/),
    });
    expect(final?.nextAttemptAt).toBeUndefined();

    // While attempt n+1 was in flight the log showed n attempts made and a claim taken no sooner
    // than base * 2^(n-1) after the n-th was recorded (timestamps cut to ms: 1 ms of slack).
    expect(seen.map((d) => [d.status, d.attempts])).toEqual([1, 2, 3, 4].map((n) => ['pending', n]));
    for (const [i, d] of seen.entries()) expect(waited(d)).toBeGreaterThanOrEqual(BASE_MS * 2 ** i - 1);
    // The schedule the dispatcher set, exactly: doubling from the base, then failed for good.
    expect(await logged(final?.id as number, 5)).toEqual([
      ['delivery attempt failed', 1, 0.2],
      ['delivery attempt failed', 2, 0.4],
      ['delivery attempt failed', 3, 0.8],
      ['delivery attempt failed', 4, 1.6],
      ['delivery failed for good', 5, undefined],
    ]);

    const got = rx.requests;
    expect(got).toHaveLength(5);
    expect(new Set(got.map((r) => r.rawBody)).size).toBe(1);
    expect(new Set(got.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(new Set(got.map((r) => r.headers['x-service-signature'])).size).toBe(1);
    expect(JSON.parse(got[0]?.rawBody as string)).toMatchObject({ id: final?.eventId, type: 'deposit.detected' });
    for (const r of got) expect(signatureChecks(r, hook.signingSecret)).toEqual(GENUINE);
    // Attempts are signed when sent: a later attempt never carries an earlier timestamp.
    const stamps = got.map((r) => Number(r.headers['webhook-timestamp']));
    expect([...stamps].sort((a, b) => a - b)).toEqual(stamps);
    expect((await c.api('DELETE', `/webhooks/${hook.id}`)).status).toBe(204);
  });

  it('a 429 is retried no sooner than its Retry-After, with the same bytes', async () => {
    const c = await company('Throttled');
    const rx = await receiver();
    const hook = await c.hook({ config: { url: `${rx.url}/hook` }, signingSecret: 'a caller-chosen secret, 42' });
    let during: Delivery | undefined;
    rx.respond(async (_r, res, i) => {
      if (i === 0) return void res.writeHead(429, { 'retry-after': '1' }).end();
      during = ((await c.deliveries(hook.id)) as Delivery[])[0];
      res.writeHead(200).end();
    });
    await anvil.send(c.address, 10n ** 18n);
    await rx.waitForRequests(2);
    const [final] = await eventually(
      () => c.deliveries(hook.id),
      (list) => list[0]?.status === 'delivered',
    );
    expect(final).toMatchObject({ status: 'delivered', attempts: 2, responseCode: 200 });
    expect(during?.attempts).toBe(1);
    expect(waited(during as Delivery)).toBeGreaterThanOrEqual(1000 - 1);
    // Retry-After (1 s) won over the backoff (0.2 s).
    expect(await logged(final?.id as number, 1)).toEqual([['delivery attempt failed', 1, 1]]);
    const [first, second] = rx.requests as [ReceivedRequest, ReceivedRequest];
    expect(second.rawBody).toBe(first.rawBody);
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    for (const r of rx.requests) expect(signatureChecks(r, hook.signingSecret)).toEqual(GENUINE);
    expect((await c.api('DELETE', `/webhooks/${hook.id}`)).status).toBe(204);
  });

  it('a PATCH of config sends the waiting retry to the new destination, same id, bytes and secret', async () => {
    const c = await company('Moved');
    const before = await receiver();
    const after = await receiver();
    const hook = await c.hook({ config: { url: `${before.url}/old` } });
    // The first attempt fails; the webhook is moved before its outcome is even recorded.
    before.respond(async (_r, res) => {
      expect((await c.api('PATCH', `/webhooks/${hook.id}`, { config: { url: `${after.url}/new` } })).status).toBe(200);
      res.writeHead(503).end();
    });
    await anvil.send(c.address, 10n ** 18n);
    await after.waitForRequests(1);
    const [final] = await eventually(
      () => c.deliveries(hook.id),
      (list) => list[0]?.status === 'delivered',
    );
    expect(final).toMatchObject({ status: 'delivered', attempts: 2 });
    expect(before.requests.map((r) => r.path)).toEqual(['/old']);
    expect(after.requests.map((r) => r.path)).toEqual(['/new']);
    const [old, moved] = [before.requests[0], after.requests[0]] as [ReceivedRequest, ReceivedRequest];
    expect(moved.rawBody).toBe(old.rawBody);
    expect(moved.headers['webhook-id']).toBe(old.headers['webhook-id']);
    expect(signatureChecks(moved, hook.signingSecret)).toEqual(GENUINE);
    expect((await c.api('DELETE', `/webhooks/${hook.id}`)).status).toBe(204);
  });

  it('a disabled webhook gets nothing: new events are not queued, a waiting retry waits until it is enabled again', async () => {
    const c = await company('Paused');
    const rx = await receiver();
    const off = await c.hook({ config: { url: `${rx.url}/off` }, enabled: false });
    const paused = await c.hook({ config: { url: `${rx.url}/paused` } });
    const on = await c.hook({ config: { url: `${rx.url}/on` } });
    const at = (path: string) => rx.requests.filter((r) => r.path === path);
    // The first attempt to /paused fails, and the webhook is disabled before it is recorded.
    rx.respond(async (r, res) => {
      if (r.path === '/paused' && at('/paused').length === 1) {
        expect((await c.api('PATCH', `/webhooks/${paused.id}`, { enabled: false })).status).toBe(200);
        return void res.writeHead(500).end();
      }
      res.writeHead(200).end();
    });
    await anvil.send(c.address, 10n ** 18n);
    await eventually(
      async () => at('/on').length,
      (n) => n === 1,
    );
    const [waiting] = await eventually(
      () => c.deliveries(paused.id),
      (list) => list[0]?.attempts === 1 && list[0]?.nextAttemptAt !== undefined,
    );
    expect(waiting).toMatchObject({ status: 'pending', attempts: 1 });
    // Once the retry is due, a later event reaches the enabled webhook: the dispatcher claimed
    // past the waiting retry's time (claims go in due order) and left it alone.
    await eventually(
      async () => Date.now(),
      (now) => now > Date.parse(waiting?.nextAttemptAt as string) + 100,
    );
    await anvil.mine(1); // deposit.confirmed
    await eventually(
      async () => at('/on').length,
      (n) => n === 2,
    );
    expect(at('/paused')).toHaveLength(1);
    expect(at('/off')).toHaveLength(0);
    expect(await c.deliveries(off.id)).toEqual([]);
    expect((await c.deliveries(paused.id)).map((d) => [d.status, d.attempts])).toEqual([['pending', 1]]);

    // Enabled again: the waiting retry is sent and delivered; the events of the disabled time are not queued.
    expect((await c.api('PATCH', `/webhooks/${paused.id}`, { enabled: true })).status).toBe(200);
    const list = await eventually(
      () => c.deliveries(paused.id),
      (l) => l[0]?.status === 'delivered',
    );
    expect(list.map((d) => [d.status, d.attempts])).toEqual([['delivered', 2]]);
    expect(at('/paused').map((r) => JSON.parse(r.rawBody).type)).toEqual(['deposit.detected', 'deposit.detected']);
    expect(at('/on').map((r) => JSON.parse(r.rawBody).type)).toEqual(['deposit.detected', 'deposit.confirmed']);
    for (const r of at('/paused')) expect(signatureChecks(r, paused.signingSecret)).toEqual(GENUINE);
    expect(at('/off')).toHaveLength(0);
    for (const h of [off, paused, on]) expect((await c.api('DELETE', `/webhooks/${h.id}`)).status).toBe(204);
  });
  it("delivers by each webhook's filters, events and walletIds: delivered, not only queued", async () => {
    const c = await company('Filtered');
    const other = (await c.api('POST', '/wallets', { name: 'other', chain: 'ethereum', network: 'devnet' })).body.id as number;
    const otherAddress = (await c.api('POST', `/wallets/${other}/addresses`)).body.address as string;
    const rx = await receiver();
    const all = await c.hook({ config: { url: `${rx.url}/all` } });
    const confirmedOnly = await c.hook({ config: { url: `${rx.url}/confirmed` }, events: ['deposit.confirmed'] });
    const oneWallet = await c.hook({ config: { url: `${rx.url}/wallet` }, walletIds: [c.wallet.id] });
    await anvil.send(c.address, 10n ** 18n);
    await anvil.send(otherAddress, 2n * 10n ** 18n);
    await anvil.mine(1);
    // Deliveries are queued with their events: once /all has all four, the others' are queued too.
    await rx.waitForRequests(4);
    const done = async () => Promise.all([all, confirmedOnly, oneWallet].map((h) => c.deliveries(h.id)));
    const logs = await eventually(
      done,
      (l) => l.every((d) => d.length > 0 && d.every((x) => x.status === 'delivered')) && l[0]?.length === 4,
    );
    expect(logs.map((l) => l.length)).toEqual([4, 2, 2]);
    const got = (path: string) =>
      rx.requests
        .filter((r) => r.path === path)
        .map((r) => JSON.parse(r.rawBody) as { type: string; data: { toAddress: string; amount: string } })
        .map((e) => [e.type, e.data.toAddress, e.data.amount])
        .sort();
    expect(got('/all')).toEqual(
      [
        ['deposit.confirmed', c.address, '1'],
        ['deposit.confirmed', otherAddress, '2'],
        ['deposit.detected', c.address, '1'],
        ['deposit.detected', otherAddress, '2'],
      ].sort(),
    );
    expect(got('/confirmed')).toEqual(
      [
        ['deposit.confirmed', c.address, '1'],
        ['deposit.confirmed', otherAddress, '2'],
      ].sort(),
    );
    expect(got('/wallet')).toEqual([
      ['deposit.confirmed', c.address, '1'],
      ['deposit.detected', c.address, '1'],
    ]);
    const secrets: Record<string, string> = {
      '/all': all.signingSecret,
      '/confirmed': confirmedOnly.signingSecret,
      '/wallet': oneWallet.signingSecret,
    };
    for (const r of rx.requests) expect(signatureChecks(r, secrets[r.path] as string)).toEqual(GENUINE);
  });
});
