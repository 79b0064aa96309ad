import { randomBytes } from 'node:crypto';
import { MasterKey, createDb, createLogger, createMetrics } from '@walletd/core';
import {
  createTestDatabase,
  eventually,
  recordDeposit,
  seedWebhookCompany,
  startReceiver,
  testConfig,
  type TestDatabase,
  type TestReceiver,
} from '@walletd/test-harness';
import { loadPlugins } from '../../platform/plugins';
import { claimDue } from './deliveryStore';
import { createDispatcher } from './dispatcher';

/**
 * Migration 051: a dispatcher that does not know a receiver fast gets one attempt to it even when
 * the other dispatchers' leases fill the default cap, so a second dispatcher can learn the
 * receiver's pace and share a busy receiver's backlog. Before, it found no room, never attempted,
 * never learned, and one dispatcher did all the work.
 */
let t: TestDatabase;
let rx: TestReceiver;
let companyId: number;
let walletId: number;
let hookId: number;
const masterKey = new MasterKey(randomBytes(32));
const A = 101; // the LISTEN session pids the claims name as `leased_by`
const B = 202;

beforeAll(async () => {
  t = await createTestDatabase();
  rx = await startReceiver();
  const c = await seedWebhookCompany(t.db, masterKey, `${rx.url}/hook`);
  companyId = c.companyId;
  walletId = c.walletId;
  hookId = c.hookId;
});
afterAll(async () => {
  await rx.close();
  await t.drop();
});

describe('the claim', () => {
  beforeEach(async () => {
    await t.db('webhook_deliveries').del();
    await t.db('webhooks').where({ id: hookId }).update({ consecutive_failures: 0 });
    for (let i = 0; i < 8; i++) await recordDeposit(t.db, companyId, walletId);
    // Dispatcher A knows the receiver fast and holds 5 leases, over the default cap of 2.
    const a = await claimDue(t.db, 5, 60_000, 2, A, { ids: [hookId], cap: 16 });
    expect(a).toHaveLength(5);
  });

  it('gives a dispatcher holding none of its leases one attempt beyond the cap, and no more', async () => {
    const first = await claimDue(t.db, 5, 60_000, 2, B, { ids: [], cap: 16 });
    expect(first).toHaveLength(1);
    expect(first.capped).toBe(true);
    const leasedBy = await t.db('webhook_deliveries').where({ id: first[0]?.id }).first('leased_by');
    expect(leasedBy.leased_by).toBe(B);
    // It holds one now: nothing more until it knows the receiver fast.
    expect(await claimDue(t.db, 5, 60_000, 2, B, { ids: [], cap: 16 })).toHaveLength(0);
    // Known fast, it has the fast receiver's room: 16 - 6 leased, 2 rows left due.
    expect(await claimDue(t.db, 5, 60_000, 2, B, { ids: [hookId], cap: 16 })).toHaveLength(2);
  });

  it("keeps the operator's cap, a failing receiver's room of one, and a claim without a LISTEN session to the cap", async () => {
    // The operator's cap: the dispatcher sends it as the fast cap too.
    expect(await claimDue(t.db, 5, 60_000, 2, B, { ids: [], cap: 2 })).toHaveLength(0);
    expect(await claimDue(t.db, 5, 60_000, 2, null, { ids: [], cap: 16 })).toHaveLength(0);
    await t.db('webhooks').where({ id: hookId }).update({ consecutive_failures: 1 });
    expect(await claimDue(t.db, 5, 60_000, 2, B, { ids: [], cap: 16 })).toHaveLength(0);
  });
});

it('two dispatchers share one busy receiver’s backlog', async () => {
  await t.db('webhook_deliveries').del();
  const total = 600;
  for (let i = 0; i < total; i++) await recordDeposit(t.db, companyId, walletId);
  // Fast (2xx well within a second), yet slow enough that one dispatcher keeps its 16 slots full.
  rx.respond((_req, res) => {
    setTimeout(() => res.writeHead(200).end('ok'), 20);
  });
  const config = testConfig({ webhooks: { allowCidrs: ['127.0.0.0/8'], concurrency: 16 } });
  const start = (metrics: ReturnType<typeof createMetrics>) => {
    const db = createDb({ url: t.url, poolMax: 4 });
    const d = createDispatcher({ config, logger: createLogger({ level: 'silent' }), db, masterKey, plugins: loadPlugins(), metrics });
    d.start();
    return { db, d };
  };
  const attempts = async (m: ReturnType<typeof createMetrics>) =>
    ((await m.webhookAttempts.get()).values.find((v) => v.labels.outcome === 'delivered')?.value ?? 0) as number;
  const delivered = async () =>
    Number((await t.db('webhook_deliveries').where({ webhook_id: hookId, status: 'delivered' }).count('* as n').first())?.n);
  const mA = createMetrics();
  const mB = createMetrics();
  const a = start(mA);
  let b: ReturnType<typeof start> | undefined;
  try {
    // A has learned the receiver is fast and keeps more than the default cap (4) in flight.
    await eventually(
      () => attempts(mA),
      (n) => n >= 40,
      30_000,
    );
    b = start(mB);
    expect(await eventually(delivered, (n) => n === total, 60_000)).toBe(total);
    const byA = await attempts(mA);
    const byB = await attempts(mB);
    expect(byA + byB).toBe(total);
    // Before 051, B found no room under the cap and sent only the last few rows, if any.
    expect(byB).toBeGreaterThanOrEqual(total / 10);
  } finally {
    for (const x of [a, b]) {
      if (!x) continue;
      await x.d.stop();
      await x.db.destroy();
    }
    rx.respond((_req, res) => {
      res.writeHead(200).end('ok');
    });
  }
}, 120_000);
