import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { MasterKey } from '@walletd/core';
import {
  call,
  createTestDatabase,
  eventually,
  recordDeposit,
  seedCompany,
  spawnWalletd,
  startReceiver,
  startTarpit,
  startTestApp,
  type Tarpit,
  type TestApp,
  type TestDatabase,
  type TestReceiver,
  type WalletdProcess,
} from '@walletd/test-harness';

/**
 * Issue 43 §2: a backed-off webhook's deliveries kept their attempts, so those of a dead receiver
 * never ended (17-27 attempts in 40 minutes, none `failed`). Spec 6.2: about 5 s doubling to 60 s,
 * 5 attempts, then `failed`. Here the schedule is shrunk (`retryBaseMs` 100: 0.1 + 0.2 + 0.4 +
 * 0.8 s) and the breaker's own back-off is its default 10 s: the deliveries to a 500, a 429 with
 * Retry-After and a tarpit must all end `failed` after 5 attempts within that window, saying the
 * endpoint was backed off, without the receivers getting every attempt; then a bulk replay to
 * receivers that answer again delivers each event once.
 */
describe('deliveries of a dead receiver end', () => {
  const EVENTS = 10;
  let t: TestDatabase;
  let app: TestApp;
  let err500: TestReceiver;
  let err429: TestReceiver;
  let tarpit: Tarpit;
  let proc: WalletdProcess | undefined;
  const hex = randomBytes(32).toString('hex');
  const masterKey = new MasterKey(Buffer.from(hex, 'hex'));
  let config: string;

  beforeAll(async () => {
    t = await createTestDatabase();
    app = await startTestApp(t.db, { webhooks: { allowCidrs: ['127.0.0.0/8'] } }, masterKey);
    err500 = await startReceiver();
    err500.respond((_r, res) => {
      res.writeHead(500).end('down');
    });
    err429 = await startReceiver();
    err429.respond((_r, res) => {
      res.writeHead(429, { 'retry-after': '1' }).end('slow down');
    });
    tarpit = await startTarpit();
    const dir = mkdtempSync(join(tmpdir(), 'walletd-dead-end-'));
    config = join(dir, 'walletd.json');
    writeFileSync(
      config,
      JSON.stringify({
        bootstrap: false,
        webhooks: { allowCidrs: ['127.0.0.0/8'], retryBaseMs: 100, timeoutMs: 300, leaseMs: 1000, pollIntervalMs: 50 },
      }),
    );
  });
  afterAll(async () => {
    proc?.child.kill('SIGKILL');
    await app.close();
    for (const r of [err500, err429]) await r.close();
    await tarpit.close();
    await t.drop();
  });

  it('a 500, a 429 with Retry-After and a tarpit: every delivery ends failed within the schedule, then a replay delivers each once', async () => {
    const s = await seedCompany(t.db);
    const since = new Date(Date.now() - 60_000).toISOString();
    const walletId = (
      await call(app.url, 'POST', '/v1/wallets', { key: s.rootKey, body: { name: 'w', chain: 'ethereum', network: 'sepolia' } })
    ).body.id;
    const hook = async (url: string) =>
      (await call(app.url, 'POST', '/v1/webhooks', { key: s.rootKey, body: { type: 'api', config: { url }, events: ['*'] } })).body
        .id as number;
    const hooks = {
      e500: await hook(`${err500.url}/hook`),
      e429: await hook(`${err429.url}/hook`),
      tarpit: await hook(`${tarpit.url}/hook`),
    };
    const ids: string[] = [];
    for (let i = 0; i < EVENTS; i++) ids.push((await recordDeposit(t.db, s.companyId, walletId)).envelope.id);

    proc = spawnWalletd(['serve', '--roles', 'dispatcher', '--config', config], { DATABASE_URL: t.url, WALLETD_MASTER_KEY: hex });
    await proc.waitFor(/dispatcher started/);
    const all = Object.values(hooks);
    const rows = () => t.db('webhook_deliveries').whereIn('webhook_id', all).orderBy('id');
    // The first back-off alone is 10 s: without the schedule running on, nothing could end sooner.
    const ended = await eventually(rows, (r) => r.every((d) => d.status !== 'pending'), 8_000);
    expect(ended).toHaveLength(3 * EVENTS);
    for (const d of ended) {
      expect(d).toMatchObject({ status: 'failed', attempts: 5, next_attempt_at: null, leased: false });
      expect(d.last_error).toMatch(
        /^(HTTP 500|HTTP 429|timeout after 300 ms)( \(endpoint backed off until \S+ after \d+ failed attempts in a row\))?$|^not sent: endpoint backed off until \S+Z after \d+ failed attempts in a row$/,
      );
    }
    for (const id of all) {
      const mine = ended.filter((d) => d.webhook_id === id);
      expect(mine.filter((d) => d.last_error.startsWith('not sent: endpoint backed off')).length).toBeGreaterThan(0);
    }
    // The breaker still spared the receivers: far fewer requests than the 5 attempts of each delivery.
    expect(err500.requests.length).toBeLessThan(5 * EVENTS);
    expect(err429.requests.length).toBeLessThan(5 * EVENTS);
    expect(tarpit.accepted()).toBeLessThan(5 * EVENTS);

    // The receivers are back (the tarpit's webhook is pointed at a live one): a bulk replay of the
    // failed ones delivers every event once. The dispatcher is restarted with the default 10 s
    // timeout first: with 300 ms, a 200 sent late under a loaded full run was a timeout, a retry and
    // a reopened breaker (20 of 30 delivered in one run), which is the right behaviour but not
    // what this part asserts.
    proc.child.kill('SIGTERM');
    await proc.exited;
    const patient = join(dirname(config), 'walletd-patient.json');
    writeFileSync(
      patient,
      JSON.stringify({
        bootstrap: false,
        webhooks: { allowCidrs: ['127.0.0.0/8'], retryBaseMs: 100, timeoutMs: 10_000, leaseMs: 30_000, pollIntervalMs: 50 },
      }),
    );
    proc = spawnWalletd(['serve', '--roles', 'dispatcher', '--config', patient], { DATABASE_URL: t.url, WALLETD_MASTER_KEY: hex });
    await proc.waitFor(/dispatcher started/);
    err500.requests.length = 0;
    err429.requests.length = 0;
    err500.respond((_r, res) => {
      res.writeHead(200).end('ok');
    });
    err429.respond((_r, res) => {
      res.writeHead(200).end('ok');
    });
    const moved = await startReceiver();
    try {
      const patched = await call(app.url, 'PATCH', `/v1/webhooks/${hooks.tarpit}`, {
        key: s.rootKey,
        body: { config: { url: `${moved.url}/hook` } },
      });
      expect(patched.status).toBe(200);
      for (const id of all) {
        const r = await call(app.url, 'POST', `/v1/webhooks/${id}/replay`, { key: s.rootKey, body: { since, status: 'failed' } });
        expect(r.status).toBe(202);
        expect(r.body).toMatchObject({ queued: EVENTS, hasMore: false });
      }
      for (const rx of [err500, err429, moved]) {
        await rx.waitForRequests(EVENTS);
      }
      const delivered = await eventually(
        () => t.db('webhook_deliveries').whereIn('webhook_id', all).where({ status: 'delivered' }).count('* as n'),
        (r) => r[0]?.n === 3 * EVENTS,
      );
      expect(delivered).toEqual([{ n: 3 * EVENTS }]);
      for (const rx of [err500, err429, moved]) {
        const got = rx.requests.map((r) => JSON.parse(r.rawBody).id as string);
        expect(got.sort()).toEqual([...ids].sort());
      }
    } finally {
      await moved.close();
    }
  });
});
