import { BaseError } from '@walletd/core';
import { Browser, createTestDatabase, seedCompany, startConsole, type TestDatabase } from '@walletd/test-harness';
import { HashGate } from './hashGate';
import { inviteMember } from '../links/inviteMember';

let t: TestDatabase;
let con: Awaited<ReturnType<typeof startConsole>>;
const PASSWORD = 'correct horse battery staple';

beforeAll(async () => {
  t = await createTestDatabase();
  // trustProxy: each test's client names its address in X-Forwarded-For, as a proxy in front would.
  con = await startConsole(t.db, { server: { trustProxy: true }, console: { signInPerIpPerMinute: 5, signInPerMinute: 12 } });
});
afterAll(async () => {
  await con.close();
  await t.drop();
});
beforeEach(() => {
  con.clock.now = Math.ceil((con.clock.now + 1) / 60_000) * 60_000; // a fresh minute: fresh windows
});

const from = (ip: string) => {
  const b = new Browser(con.url);
  return (body: Record<string, unknown>, path = '/console/api/session') =>
    b.call('POST', path, { body, headers: { 'x-forwarded-for': ip } });
};

function expectRateLimited(r: { status: number; headers: Headers; body: Record<string, unknown> }) {
  expect([r.status, r.body.code, r.body.error]).toEqual([429, 'rate_limited', 'Too Many Requests']);
  expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
}

describe('sign-in limits (issue 42 §5)', () => {
  it('refuses sign-ins from one IP after its limit, right password included, and links too, until the minute ends', async () => {
    const s = await seedCompany(t.db);
    const email = 'dev-limits@example.com';
    const inv = await inviteMember(t.db, { companyId: s.companyId, email, role: 'developer' }, con.clock.now, 86_400_000);
    const post = from('198.51.100.7');
    expect((await post({ password: PASSWORD }, `/console/api/links/${inv.token}`)).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await post({ email, password: PASSWORD })).status).toBe(201);
    expectRateLimited(await post({ email, password: PASSWORD }));
    expectRateLimited(await post({ password: PASSWORD }, '/console/api/links/not-a-token'));
    // Another address is not this one's budget.
    expect((await from('198.51.100.8')({ email, password: PASSWORD })).status).toBe(201);
    con.clock.now += 60_000;
    expect((await post({ email, password: PASSWORD })).status).toBe(201);
    // The refusals were not sign-in attempts: no audit row each.
    expect(await t.db('audit_log').where({ action: 'member.sign_in_failed' })).toEqual([]);
  });

  it('refuses an email spray from one IP: each email is new to the per-email lockout, the IP budget still ends', async () => {
    const post = from('203.0.113.9');
    for (let i = 0; i < 5; i++) expect((await post({ email: `spray-${i}@example.com`, password: 'not the password' })).status).toBe(401);
    expectRateLimited(await post({ email: 'spray-5@example.com', password: 'not the password' }));
  });

  it('refuses sign-ins from everywhere once the global limit is spent', async () => {
    for (let i = 0; i < 12; i++) expect((await from(`192.0.2.${i + 1}`)({ email: `g-${i}@example.com`, password: 'x' })).status).toBe(401);
    expectRateLimited(await from('192.0.2.200')({ email: 'g-last@example.com', password: 'x' }));
  });
});

describe('HashGate', () => {
  it('runs up to its concurrency, queues up to its queue in order, and refuses beyond with 503 unavailable', async () => {
    const gate = new HashGate(1, 1);
    const order: string[] = [];
    let release: () => void = () => undefined;
    const first = gate.run(
      () =>
        new Promise<void>((r) => {
          release = r;
        }),
    );
    const second = gate.run(async () => {
      order.push('second ran');
    });
    expect(gate.load).toEqual({ running: 1, waiting: 1 });
    const third = await gate.run(async () => 'ran').catch((e: unknown) => e);
    expect(third).toBeInstanceOf(BaseError);
    expect([(third as BaseError).code, (third as BaseError).status, (third as BaseError).details]).toEqual([
      'unavailable',
      503,
      { retryAfterSeconds: 1 },
    ]);
    expect(order).toEqual([]);
    release();
    await first;
    await second;
    expect(order).toEqual(['second ran']);
    expect(gate.load).toEqual({ running: 0, waiting: 0 });
  });
});
