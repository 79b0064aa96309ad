import { randomBytes } from 'node:crypto';
import { MasterKey, createLogger } from '@walletd/core';
import {
  type Browser,
  type ConsoleServer,
  type TestDatabase,
  type TestReceiver,
  createTestDatabase,
  onboardMember,
  recordDeposit,
  seedCompany,
  seedWatchedAddress,
  startConsole,
  startReceiver,
  testConfig,
} from '@walletd/test-harness';
import { createDispatcher } from './dispatcher/dispatcher';
import { loadPlugins } from '../platform/plugins';

let t: TestDatabase;
let con: ConsoleServer;
let rx: TestReceiver;
const masterKey = new MasterKey(randomBytes(32));
const webhooks = { allowCidrs: ['127.0.0.0/8'] };

beforeAll(async () => {
  t = await createTestDatabase();
  con = await startConsole(t.db, { webhooks }, masterKey);
  rx = await startReceiver();
});
afterAll(async () => {
  await rx.close();
  await con.close();
  await t.drop();
});

let n = 0;
/** A company with one wallet and a signed-in member of `role`. */
async function member(role: string, companyId?: number) {
  n += 1;
  const company = companyId ?? (await seedCompany(t.db, 'paid', `Co ${n}`)).companyId;
  const walletId = await seedWatchedAddress(t.db, company, `0x${n.toString(16).padStart(40, '0')}`);
  const m = await onboardMember(con, t.db, { companyId: company, email: `${role}-${n}@acme.test`, role });
  return { ...m, companyId: company, walletId };
}

const createHook = async (b: Browser, body: Record<string, unknown> = {}) => {
  const r = await b.call('POST', '/console/api/webhooks', {
    body: { type: 'api', config: { url: `${rx.url}/hook?token=abc` }, events: ['*'], ...body },
  });
  expect(r.status).toBe(201);
  return r.body as { webhook: { id: number }; signingSecret: string };
};

/** The secret as a receiver, a log or a careless encoder may spell it: none may appear. */
function spellings(secret: string): string[] {
  const raw = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return [secret, secret.replace(/^whsec_/, ''), raw.toString('hex'), raw.toString('base64url'), Buffer.from(secret).toString('base64')];
}
const carries = (text: string, secret: string) => spellings(secret).some((s) => text.includes(s));

const auditRows = (companyId: number) =>
  t.db('audit_log').where({ company_id: companyId }).andWhere('action', 'like', 'webhook.%').orderBy('id') as Promise<
    { action: string; actor_type: string; actor_id: string; ip: string; details: Record<string, unknown> }[]
  >;

describe('console webhooks API', () => {
  it('a developer creates, lists, edits, rotates and deletes; the secret is in the create and rotate answers only; each change is audited without it', async () => {
    const dev = await member('developer');
    const { webhook, signingSecret } = await createHook(dev.b);
    expect(signingSecret).toMatch(/^whsec_/);
    const list = await dev.b.call('GET', '/console/api/webhooks');
    expect(list.body.data).toEqual([
      expect.objectContaining({
        id: webhook.id,
        config: { url: `${rx.url}/hook?token=abc` },
        events: ['*'],
        enabled: true,
        delivery: { consecutiveFailures: 0, backedOffUntil: null },
      }),
    ]);
    const edited = await dev.b.call('PATCH', `/console/api/webhooks/${webhook.id}`, {
      body: { events: ['deposit.confirmed'], enabled: false },
    });
    expect(edited.body).toMatchObject({ events: ['deposit.confirmed'], enabled: false });
    const rotated = await dev.b.call('POST', `/console/api/webhooks/${webhook.id}/rotate-secret`);
    expect(rotated.body).toEqual({ id: webhook.id, signingSecret: expect.stringMatching(/^whsec_/) });
    expect(rotated.headers.get('cache-control')).toBe('no-store');
    const fresh = rotated.body.signingSecret as string;
    expect(fresh).not.toBe(signingSecret);

    // No later answer carries either secret, in any spelling.
    const reads = [
      await dev.b.call('GET', '/console/api/webhooks'),
      await dev.b.call('GET', `/console/api/webhooks/${webhook.id}`),
      await dev.b.call('GET', `/console/api/webhooks/${webhook.id}/deliveries`),
    ];
    for (const r of [edited, ...reads]) {
      expect(r.status).toBe(200);
      for (const s of [signingSecret, fresh]) expect(carries(JSON.stringify(r.body), s)).toBe(false);
    }

    expect((await dev.b.call('DELETE', `/console/api/webhooks/${webhook.id}`)).status).toBe(204);
    expect((await dev.b.call('GET', `/console/api/webhooks/${webhook.id}`)).status).toBe(404);

    const rows = await auditRows(dev.companyId);
    expect(rows.map((r) => r.action)).toEqual(['webhook.created', 'webhook.changed', 'webhook.secret_rotated', 'webhook.deleted']);
    for (const r of rows) {
      expect(r).toMatchObject({ actor_type: 'member', actor_id: String(dev.memberId), ip: expect.stringMatching(/127\.0\.0\.1/) });
      expect(r.details.webhookId).toBe(webhook.id);
      for (const s of [signingSecret, fresh]) expect(carries(JSON.stringify(r.details), s)).toBe(false);
    }
    // Where it points, without the query string a receiver may keep a token in.
    expect(rows[0]!.details).toMatchObject({ type: 'api', events: ['*'], destination: `${rx.url}/hook`, enabled: true });
    expect(JSON.stringify(rows)).not.toContain('token=abc');
    expect(rows[1]!.details).toMatchObject({ fields: ['events', 'enabled'], events: ['deposit.confirmed'], enabled: false });
  });

  it('create, a new destination, rotation and delete need a fresh step-up; other edits do not (issue 42 §5)', async () => {
    const dev = await member('developer');
    const { webhook } = await createHook(dev.b);
    const base = `/console/api/webhooks/${webhook.id}`;
    con.clock.now += 300_001; // the sign-in's step-up (console.stepUpMs) is over
    const guarded: [string, string, unknown?][] = [
      ['POST', '/console/api/webhooks', { type: 'api', config: { url: `${rx.url}/elsewhere` }, events: ['*'] }],
      ['PATCH', base, { config: { url: `${rx.url}/elsewhere` } }],
      ['POST', `${base}/rotate-secret`],
      ['DELETE', base],
    ];
    for (const [method, path, body] of guarded) {
      const r = await dev.b.call(method, path, { body });
      expect([method, path, r.status, r.body.code]).toEqual([method, path, 403, 'step_up_required']);
    }
    expect((await dev.b.call('PATCH', base, { body: { enabled: false } })).status).toBe(200);
    expect((await dev.b.call('GET', base)).body.config).toEqual({ url: `${rx.url}/hook?token=abc` });
    expect((await dev.b.call('POST', '/console/api/step-up', { body: { code: dev.code() } })).status).toBe(200);
    const statuses = [];
    for (const [method, path, body] of guarded) statuses.push((await dev.b.call(method, path, { body })).status);
    expect(statuses).toEqual([201, 200, 200, 204]);
  });

  it('a viewer gets 403 role_insufficient on every webhook route, reads included', async () => {
    const dev = await member('developer');
    const { webhook } = await createHook(dev.b);
    const viewer = await member('viewer', dev.companyId);
    const base = `/console/api/webhooks/${webhook.id}`;
    const calls: [string, string, unknown?][] = [
      ['GET', '/console/api/webhooks'],
      ['POST', '/console/api/webhooks', { type: 'api', config: { url: `${rx.url}/v` }, events: ['*'] }],
      ['GET', base],
      ['PATCH', base, { enabled: false }],
      ['DELETE', base],
      ['POST', `${base}/rotate-secret`],
      ['GET', `${base}/deliveries`],
      ['GET', `${base}/deliveries/1`],
      ['POST', `${base}/deliveries/1/redeliver`],
      ['POST', `${base}/replay`, { since: '2026-01-01T00:00:00Z' }],
    ];
    for (const [method, path, body] of calls) {
      const r = await viewer.b.call(method, path, { body });
      expect([method, path, r.status, r.body.code]).toEqual([method, path, 403, 'role_insufficient']);
    }
    expect(await auditRows(dev.companyId)).toHaveLength(1);
  });

  it("another company's webhook is 404 on every route, and nothing changes", async () => {
    const a = await member('admin');
    const { webhook } = await createHook(a.b);
    const b = await member('admin');
    const base = `/console/api/webhooks/${webhook.id}`;
    for (const [method, path, body] of [
      ['GET', base],
      ['PATCH', base, { enabled: false }],
      ['DELETE', base],
      ['POST', `${base}/rotate-secret`],
      ['GET', `${base}/deliveries`],
      ['POST', `${base}/replay`, { since: '2026-01-01T00:00:00Z' }],
    ] as [string, string, unknown?][]) {
      const r = await b.b.call(method, path, { body });
      expect([method, path, r.status, r.body.code]).toEqual([method, path, 404, 'not_found']);
    }
    expect((await b.b.call('GET', '/console/api/webhooks')).body.data).toEqual([]);
    expect((await a.b.call('GET', base)).body).toMatchObject({ enabled: true });
  });

  it('bad input is 400 validation_failed naming the field, with the /v1 rules (URL, destination)', async () => {
    const dev = await member('developer');
    const bad = async (method: string, path: string, body: unknown, field: RegExp) => {
      const r = await dev.b.call(method, path, { body });
      expect([path, r.status, r.body.code]).toEqual([path, 400, 'validation_failed']);
      expect(r.body.message).toMatch(field);
    };
    const create = (body: Record<string, unknown>) => ({ type: 'api', config: { url: `${rx.url}/x` }, events: ['*'], ...body });
    await bad('POST', '/console/api/webhooks', create({ config: { url: 'not a url' } }), /config\.url/);
    await bad('POST', '/console/api/webhooks', create({ config: { url: 'http://203.0.113.7/x' } }), /config\.url must use https/);
    await bad(
      'POST',
      '/console/api/webhooks',
      create({ config: { url: 'https://10.1.2.3/x' } }),
      /config\.url points at a non-public address/,
    );
    await bad('POST', '/console/api/webhooks', create({ events: ['deposit.nope'] }), /events/);
    await bad('POST', '/console/api/webhooks', create({ events: [] }), /events/);
    const { webhook } = await createHook(dev.b);
    const base = `/console/api/webhooks/${webhook.id}`;
    await bad('PATCH', base, { signingSecret: 'a'.repeat(40) }, /signingSecret/);
    await bad('PATCH', base, { config: { url: 'ftp://example.com/' } }, /config\.url/);
    await bad('POST', `${base}/rotate-secret`, { signingSecret: 'short' }, /signingSecret/);
    await bad('GET', `${base}/deliveries?status=lost`, undefined, /status/);
    await bad('GET', `${base}/deliveries?before=x`, undefined, /before/);
    await bad('POST', `${base}/replay`, { since: 'yesterday' }, /since/);
    await bad('POST', `${base}/replay`, { since: '2026-02-01T00:00:00Z', until: '2026-01-01T00:00:00Z' }, /until/);
    await bad('GET', '/console/api/webhooks/abc', undefined, /webhook id/);
    expect(await auditRows(dev.companyId)).toHaveLength(1);
  });

  it('deliveries: status filter, keyset pages, payload and the redacted response; redeliver and replay are audited', async () => {
    const dev = await member('developer');
    const { webhook, signingSecret } = await createHook(dev.b);
    for (let i = 0; i < 3; i++) await recordDeposit(t.db, dev.companyId, dev.walletId);
    // A receiver that echoes the secret: the log keeps its answer, redacted.
    rx.respond((_r, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(`bad signature, expected ${signingSecret}`);
    });
    const config = testConfig({ webhooks });
    const dispatcher = createDispatcher({ config, logger: createLogger({ level: 'silent' }), db: t.db, masterKey, plugins: loadPlugins() });
    try {
      expect(await dispatcher.runOnce()).toBeGreaterThanOrEqual(1);
    } finally {
      await dispatcher.stop();
      rx.respond((_r, res) => {
        res.writeHead(200).end('ok');
      });
    }
    const base = `/console/api/webhooks/${webhook.id}`;
    const first = await dev.b.call('GET', `${base}/deliveries?limit=2`);
    expect(first.body.data).toHaveLength(2);
    expect(first.body.next).toBe(String(first.body.data[1].id));
    const second = await dev.b.call('GET', `${base}/deliveries?limit=2&before=${first.body.next}`);
    expect(second.body).toMatchObject({ next: null });
    expect(second.body.data).toHaveLength(1);
    const all = [...first.body.data, ...second.body.data] as { id: number; attempts: number; responseCode: number | null }[];
    expect(all.map((d) => d.id)).toEqual([...all.map((d) => d.id)].sort((x, y) => y - x));

    const tried = all.filter((d) => d.attempts > 0);
    expect(tried.length).toBeGreaterThanOrEqual(1);
    expect(tried[0]).toMatchObject({ status: 'pending', responseCode: 500, lastError: 'HTTP 500' });
    const detail = await dev.b.call('GET', `${base}/deliveries/${tried[0]!.id}`);
    expect(detail.body.payload).toMatchObject({ type: 'deposit.confirmed' });
    expect(detail.body.responseBody).toMatch(/^bad signature, expected \[redacted\]/);
    expect(carries(JSON.stringify(detail.body), signingSecret)).toBe(false);

    // Filters: none delivered yet; mark one failed, then it is the only failed one.
    expect((await dev.b.call('GET', `${base}/deliveries?status=delivered`)).body.data).toEqual([]);
    await t.db('webhook_deliveries').where({ id: all[2]!.id }).update({ status: 'failed', next_attempt_at: null });
    const failed = await dev.b.call('GET', `${base}/deliveries?status=failed`);
    expect(failed.body.data.map((d: { id: number }) => d.id)).toEqual([all[2]!.id]);

    // Redeliver the failed one: a new delivery of the same event; a pending one answers itself.
    const again = await dev.b.call('POST', `${base}/deliveries/${all[2]!.id}/redeliver`);
    expect(again.status).toBe(202);
    expect(again.body.delivery).toMatchObject({ status: 'pending', eventId: failed.body.data[0].eventId });
    const waiting = await dev.b.call('POST', `${base}/deliveries/${all[0]!.id}/redeliver`);
    expect(waiting.status).toBe(200);
    expect(waiting.body).toMatchObject({ created: false, delivery: { id: all[0]!.id } });

    // Replay: every event of the window already has a pending delivery, so nothing new is queued.
    const replayed = await dev.b.call('POST', `${base}/replay`, { body: { since: '2000-01-01T00:00:00Z' } });
    expect(replayed.status).toBe(202);
    expect(replayed.body).toEqual({ queued: 0, hasMore: false, next: null });

    const rows = await auditRows(dev.companyId);
    expect(rows.map((r) => r.action)).toEqual(['webhook.created', 'webhook.redelivered', 'webhook.redelivered', 'webhook.replayed']);
    expect(rows[1]!.details).toMatchObject({ deliveryId: all[2]!.id, newDeliveryId: again.body.delivery.id, created: true });
    expect(rows[3]!.details).toMatchObject({ since: '2000-01-01T00:00:00Z', queued: 0 });
    expect(carries(JSON.stringify(rows), signingSecret)).toBe(false);
  });
});
