import { createLogger, type Db } from '@walletd/core';
import {
  call,
  createTestDatabase,
  eventually,
  seedCompany,
  seedWatchedAddress,
  startTestApp,
  testConfig,
  type TestApp,
  type TestDatabase,
} from '@walletd/test-harness';
import { loadPlugins } from '../../platform/plugins';
import { claimDue, recordAttempts } from './deliveryStore';
import { createDispatcher } from './dispatcher';
import { pruneDeliveries, pruneDeliveriesBatch } from './pruneDeliveries';

/**
 * Issue 32: delivery attempt rows (604 bytes each, two per transfer) were kept forever. Rows final
 * for longer than `webhooks.deliveryRetentionDays` are deleted in small batches; pending rows and
 * recent ones stay, and a dispatcher claiming meanwhile never waits for a batch.
 */
let t: TestDatabase;
let app: TestApp;
let companyId: number;
let walletId: number;
let webhookId: number;

beforeAll(async () => {
  t = await createTestDatabase();
  app = await startTestApp(t.db, { webhooks: { allowCidrs: ['127.0.0.0/8'] } });
  const s = await seedCompany(t.db);
  companyId = s.companyId;
  walletId = await seedWatchedAddress(t.db, companyId, '0x00000000000000000000000000000000000000bb');
  const hook = await call(app.url, 'POST', '/v1/webhooks', {
    key: s.rootKey,
    body: { type: 'api', config: { url: 'http://127.0.0.1:9/hook' }, events: ['*'] },
  });
  expect(hook.status).toBe(201);
  webhookId = hook.body.id;
});
afterAll(async () => {
  await app.close();
  await t.drop();
});

/** `n` deliveries of fresh events in `status`, last updated `daysAgo` days ago; returns their ids. */
async function deliveries(n: number, status: 'pending' | 'delivered' | 'failed', daysAgo: number): Promise<number[]> {
  const { rows } = await t.db.raw(
    `with e as (
       insert into events (id, company_id, type, chain, network, wallet_id, body, created_at)
       select gen_random_uuid(), ?, 'deposit.confirmed', 'ethereum', 'devnet', ?, '{}', now() - make_interval(days => ?)
       from generate_series(1, ?) returning id)
     insert into webhook_deliveries (webhook_id, event_id, event_type, status, attempts, next_attempt_at, created_at, updated_at)
     select ?, id, 'deposit.confirmed', ?, case when ? = 'pending' then 0 else 1 end,
       case when ? = 'pending' then now() else null end, now() - make_interval(days => ?), now() - make_interval(days => ?)
     from e returning id`,
    [companyId, walletId, daysAgo, n, webhookId, status, status, status, daysAgo, daysAgo],
  );
  return (rows as { id: number }[]).map((r) => r.id);
}

async function remaining(ids: number[]): Promise<number[]> {
  return (await t.db('webhook_deliveries').whereIn('id', ids).orderBy('id').pluck('id')) as number[];
}

async function clear(): Promise<void> {
  await t.db('webhook_deliveries').delete();
}

it('prunes final rows past the retention, in batches, and keeps pending and recent ones', async () => {
  await clear();
  const oldDelivered = await deliveries(5, 'delivered', 40);
  const oldFailed = await deliveries(3, 'failed', 31);
  // Pending however old: a delivery still being retried is never pruned.
  const oldPending = await deliveries(2, 'pending', 40);
  const recent = [...(await deliveries(3, 'delivered', 29)), ...(await deliveries(2, 'failed', 1))];

  // One batch takes at most its size, the oldest first.
  expect(await pruneDeliveriesBatch(t.db, 30, 4)).toBe(4);
  expect(await remaining(oldDelivered)).toEqual(oldDelivered.slice(4));
  // The rest in batches until one comes back short.
  expect(await pruneDeliveries(t.db, 30)).toBe(4);
  expect(await remaining([...oldDelivered, ...oldFailed])).toEqual([]);
  expect(await remaining([...oldPending, ...recent])).toEqual([...oldPending, ...recent].sort((a, b) => a - b));
  expect(await pruneDeliveries(t.db, 30)).toBe(0);
});

it('a dispatcher claims and records while a prune batch is open in another transaction, and a second pruner skips its rows', async () => {
  await clear();
  const old = await deliveries(50, 'delivered', 45);
  const due = await deliveries(3, 'pending', 0);

  const trx = await t.db.transaction();
  try {
    // The batch has deleted (and so locked) every old row, not committed.
    expect(await pruneDeliveriesBatch(trx, 30)).toBe(50);
    // A claim on other connections takes the due rows without waiting for it…
    const claimed = await claimDue(t.db, 10, 60_000, 8);
    expect(claimed.map((d) => d.id).sort((a, b) => a - b)).toEqual(due);
    // …its outcomes are recorded (the rows turn final, recent)…
    await recordAttempts(
      t.db,
      claimed.map((d) => ({
        id: d.id,
        webhookId: d.webhookId,
        leaseUs: d.leaseUs,
        ok: true,
        responseCode: 200,
        responseBody: null,
        error: null,
        retryInSeconds: 0,
      })),
    );
    // …and a second dispatcher's pruner passes over the locked rows instead of waiting.
    expect(await pruneDeliveriesBatch(t.db, 30)).toBe(0);
    await trx.commit();
  } catch (e) {
    await trx.rollback();
    throw e;
  }
  expect(await remaining(old)).toEqual([]);
  expect(await t.db('webhook_deliveries').whereIn('id', due).pluck('status')).toEqual(['delivered', 'delivered', 'delivered']);
});

it('the dispatcher prunes at its start with webhooks.deliveryRetentionDays, and 0 keeps everything', async () => {
  const common = (days: number) => ({
    config: testConfig({ webhooks: { deliveryRetentionDays: days } }),
    logger: createLogger({ level: 'silent' }),
    db: t.db as Db,
    masterKey: app.masterKey,
    plugins: loadPlugins(),
  });
  await clear();
  const old = await deliveries(3, 'failed', 8);
  const keep = createDispatcher(common(0));
  keep.start();
  await keep.stop();
  expect(await remaining(old)).toEqual(old);

  const prune = createDispatcher(common(7));
  prune.start();
  const left = await eventually(
    () => remaining(old),
    (ids) => ids.length === 0,
  );
  await prune.stop();
  expect(left).toEqual([]);
});
