import {
  call,
  createTestDatabase,
  eventually,
  expectSchema,
  keyFor,
  recordDeposit,
  seedCompany,
  startTestApp,
  type TestApp,
  type TestDatabase,
} from '@walletd/test-harness';

let t: TestDatabase;
let app: TestApp;

beforeAll(async () => {
  t = await createTestDatabase();
  app = await startTestApp(t.db);
});
afterAll(async () => {
  await app.close();
  await t.drop();
});

const currentXid = async () => BigInt((await t.db.raw('select pg_current_xact_id()::text as x')).rows[0].x as string);

/**
 * Consumes transaction ids until the cluster's counter reaches `target`: one committed transaction
 * per id, inside one DO block so thousands cost one round trip. The counter is cluster-wide (other
 * test files move it too), so this only guarantees "at least".
 */
async function burnXidsTo(target: bigint): Promise<void> {
  for (;;) {
    const gap = target - (await currentXid());
    if (gap <= 0n) return;
    await t.db.raw(`do $$ begin for i in 1..${gap} loop perform pg_current_xact_id(); commit; end loop; end $$`);
  }
}

const nextPowerOfTen = (x: bigint) => {
  let p = 1000n;
  while (p <= x) p *= 10n;
  return p;
};

/** Follows `next` with limit=1 from the start until the feed says there is no more. */
async function pageAll(key: string): Promise<string[]> {
  const seen: string[] = [];
  let after = '0';
  for (;;) {
    const r = await call(app.url, 'GET', `/v1/events?after=${after}&limit=1`, { key });
    expect(r.status).toBe(200);
    expectSchema('EventFeed', r.body);
    seen.push(...r.body.events.map((e: { id: string }) => e.id));
    if (!r.body.hasMore) return seen;
    after = r.body.next;
  }
}

describe('GET /v1/events', () => {
  it('pages every event exactly once, in commit order, across transaction ids that gain a digit', async () => {
    const s = await seedCompany(t.db);
    const mk = async (name: string) =>
      (await call(app.url, 'POST', '/v1/wallets', { key: s.rootKey, body: { name, chain: 'ethereum', network: 'sepolia' } })).body
        .id as number;
    const [w1, w2] = [await mk('one'), await mk('two')];
    const recorded: { id: string; walletId: number }[] = [];
    const record = async (walletId: number) => {
      const e = await recordDeposit(t.db, s.companyId, walletId);
      recorded.push({ id: e.envelope.id, walletId });
    };

    // Two successive boundaries where the id gains a digit (999 → 1000, 9 999 → 10 000 on a
    // fresh cluster): events sit a little below each (leading digit 9, which sorts after 1 as
    // text) and above it, from both wallets.
    const first = nextPowerOfTen(await currentXid());
    for (const boundary of [first, first * 10n]) {
      await burnXidsTo(boundary - boundary / 10n);
      await record(w1);
      await record(w2);
      await burnXidsTo(boundary);
      await record(w1);
      await record(w2);
    }
    const xids = (await t.db('events').where('company_id', s.companyId).orderBy('seq').select(t.db.raw('xid::text as x'))) as {
      x: string;
    }[];
    // At least three widths: both boundaries were crossed between events.
    expect(new Set(xids.map((r) => r.x.length)).size).toBeGreaterThanOrEqual(3);

    // The feed serves an event once every older transaction has ended (other test files run
    // concurrently on the same cluster): wait for the last one to be visible, then page.
    const all = recorded.map((e) => e.id);
    const lastVisible = async () =>
      (await call(app.url, 'GET', `/v1/events?limit=1000`, { key: s.rootKey })).body.events.map((e: { id: string }) => e.id);
    expect(await eventually(lastVisible, (ids: string[]) => ids.length === all.length)).toEqual(all);

    expect(await pageAll(s.rootKey)).toEqual(all);
    const scoped = await keyFor(t.db, s.companyId, { actions: ['events:read'], walletIds: [w2] });
    expect(await pageAll(scoped.key)).toEqual(recorded.filter((e) => e.walletId === w2).map((e) => e.id));
  });

  it("answers each event's stored body byte for byte, as res.json of the parsed page would", async () => {
    const s = await seedCompany(t.db);
    const wallet = (
      await call(app.url, 'POST', '/v1/wallets', { key: s.rootKey, body: { name: 'bytes', chain: 'ethereum', network: 'sepolia' } })
    ).body.id as number;
    for (let i = 0; i < 3; i++) await recordDeposit(t.db, s.companyId, wallet);
    const page = await eventually(
      () => call(app.url, 'GET', '/v1/events?limit=2', { key: s.rootKey }),
      (r) => r.body.events.length === 2,
    );
    const stored = (
      (await t
        .db('events')
        .where('company_id', s.companyId)
        .orderBy([{ column: 'xid' }, { column: 'seq' }])
        .select('body')) as { body: string }[]
    ).map((r) => r.body);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(page.text).toBe(JSON.stringify(page.body));
    expect(page.text).toBe(`{"events":[${stored.slice(0, 2).join(',')}],"next":${JSON.stringify(page.body.next)},"hasMore":true}`);
    expect(Number(page.headers.get('content-length'))).toBe(Buffer.byteLength(page.text));
    const head = await fetch(`${app.url}/v1/events?limit=2`, { method: 'HEAD', headers: { authorization: `Bearer ${s.rootKey}` } });
    expect(head.headers.get('content-length')).toBe(page.headers.get('content-length'));
    expect(await head.text()).toBe('');
  });

  it('answers 400 for a cursor whose parts are out of range', async () => {
    const s = await seedCompany(t.db);
    for (const after of ['18446744073709551616.1', '99999999999999999999.1', '1.9999999999999999', '1.-1', 'x.1']) {
      const r = await call(app.url, 'GET', `/v1/events?after=${after}`, { key: s.rootKey });
      expect(r.status).toBe(400);
      expect(r.body).toEqual({
        statusCode: 400,
        error: 'Bad Request',
        message: 'after must be a cursor returned as `next`',
        code: 'validation_failed',
      });
    }
    const max = await call(app.url, 'GET', '/v1/events?after=18446744073709551615.1', { key: s.rootKey });
    expect(max.status).toBe(200);
    expect(max.body).toEqual({ events: [], next: '18446744073709551615.1', hasMore: false });
  });
});
