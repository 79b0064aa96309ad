import { randomBytes } from 'node:crypto';
import { DELIVERY_CHANNEL, MasterKey, recordEvents } from '@walletd/core';
import pg from 'pg';
import { backOffWebhook, createTestDatabase, recordDeposit, seedWebhookCompany, type TestDatabase } from '@walletd/test-harness';
import { passBackedOff } from './backedOffDeliveries';
import { recordAttempts } from './deliveryStore';

/**
 * Issue 43 §5 (migration 049): a delivery to a webhook that is backed off is written already
 * passed over, the turns within the back-off used up as the backed-off sweep would (issue 43 §2),
 * so it costs no update and no claim work until its next turn. A webhook its breaker backed off
 * keeps the dispatcher's retry base; one without (backed off by a previous version) gets its
 * deliveries due, for the sweep.
 */
let t: TestDatabase;
const masterKey = new MasterKey(randomBytes(32));

beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t.drop();
});

async function backedOffHook(seconds: number | null, retryBaseSecs: number | null) {
  const c = await seedWebhookCompany(t.db, masterKey, 'http://127.0.0.1:9/hook');
  if (seconds !== null) await backOffWebhook(t.db, c.hookId, seconds, retryBaseSecs);
  return c;
}

const delivery = (hookId: number) => t.db('webhook_deliveries').where({ webhook_id: hookId }).first();
const waitSeconds = (d: { next_attempt_at: Date; updated_at: Date }) => (d.next_attempt_at.getTime() - d.updated_at.getTime()) / 1000;

it('writes a backed-off webhook’s new delivery passed over, as the sweep would', async () => {
  const twelve = await backedOffHook(12, 5);
  const long = await backedOffHook(600, 5);
  const open = await backedOffHook(null, null);
  for (const h of [twelve, long, open]) await recordDeposit(t.db, h.companyId, h.walletId);

  // 12 s: the turn now and the one at 5 s fall within it; the next is at 5 + 10 = 15 s.
  const d = await delivery(twelve.hookId);
  expect(d).toMatchObject({ status: 'pending', attempts: 2, leased: false });
  expect(d.last_error).toMatch(/^not sent: endpoint backed off until \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ after 5 failed attempts in a row$/);
  expect(waitSeconds(d)).toBe(15);
  // 10 minutes: the whole schedule (75 s) falls within it; four turns are passed here, the fifth
  // (at 5 + 10 + 20 + 40 s), which ends it, is left to the sweep (it counts the deliveries that end so).
  const l = await delivery(long.hookId);
  expect(l).toMatchObject({ status: 'pending', attempts: 4 });
  expect(waitSeconds(l)).toBe(75);
  expect(await delivery(open.hookId)).toMatchObject({ status: 'pending', attempts: 0, last_error: null });
  // Nothing is left due for the sweep until then; at the fifth turn it ends the delivery `failed`.
  expect(await passBackedOff(t.db, 5000)).toEqual({ passed: 0, failed: 0 });
  await t.db('webhook_deliveries').where({ webhook_id: long.hookId }).update({ next_attempt_at: t.db.fn.now() });
  expect(await passBackedOff(t.db, 5000)).toEqual({ passed: 1, failed: 1 });
  expect(await delivery(long.hookId)).toMatchObject({ status: 'failed', attempts: 5, next_attempt_at: null });
});

it('passes the batch insert’s deliveries too, on the retry base the breaker kept', async () => {
  const h = await backedOffHook(1, 0.1);
  await t.db.transaction((trx) =>
    recordEvents(trx, [
      { type: 'deposit.confirmed', chain: 'ethereum', network: 'sepolia', companyId: h.companyId, walletId: h.walletId, data: {} },
    ]),
  );
  // Base 0.1 s: turns at 0, 0.1, 0.3, 0.7 s fall within the 1 s back-off, the fifth (1.5 s) after it.
  const d = await delivery(h.hookId);
  expect(d).toMatchObject({ status: 'pending', attempts: 4 });
  expect(waitSeconds(d)).toBeCloseTo(1.5, 6);
});

it('leaves a webhook backed off by a previous version (no retry base) to the sweep, which writes the same', async () => {
  const old = await backedOffHook(12, null);
  await recordDeposit(t.db, old.companyId, old.walletId);
  expect(await delivery(old.hookId)).toMatchObject({ status: 'pending', attempts: 0, last_error: null });
  expect(await passBackedOff(t.db, 5000)).toEqual({ passed: 1, failed: 0 });
  const d = await delivery(old.hookId);
  expect(d).toMatchObject({ status: 'pending', attempts: 2 });
  expect(waitSeconds(d)).toBe(15);
});

it('keeps the dispatcher’s retry base on the webhook its breaker backs off', async () => {
  const h = await backedOffHook(null, null);
  const failed = [1, 2, 3, 4, 5].map((i) => ({
    id: -i,
    webhookId: h.hookId,
    leaseUs: 0,
    ok: false,
    responseCode: null,
    responseBody: null,
    error: 'timeout after 10000 ms',
    retryInSeconds: 5,
  }));
  const [change] = await recordAttempts(t.db, failed, 250);
  expect(change?.backedOffUntil).not.toBeNull();
  expect(await t.db('webhooks').where({ id: h.hookId }).first('retry_base_secs')).toEqual({ retry_base_secs: 0.25 });
});

it('wakes the dispatchers only for a delivery due now, not for one passed over', async () => {
  const passed = await backedOffHook(600, 5);
  const open = await backedOffHook(null, null);
  const listener = new pg.Client({ connectionString: t.url });
  await listener.connect();
  try {
    let told = 0;
    const second = new Promise<void>((resolve) => {
      listener.on('notification', () => {
        told += 1;
        resolve();
      });
    });
    await listener.query(`listen ${DELIVERY_CHANNEL}`);
    // Committed in this order, so a notification of the first would arrive before the second's.
    await recordDeposit(t.db, passed.companyId, passed.walletId);
    await recordDeposit(t.db, open.companyId, open.walletId);
    await second;
    expect(told).toBe(1);
    expect(await delivery(passed.hookId)).toMatchObject({ status: 'pending', attempts: 4 });
  } finally {
    await listener.end();
  }
});
