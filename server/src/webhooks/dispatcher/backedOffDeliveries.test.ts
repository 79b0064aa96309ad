import { randomBytes } from 'node:crypto';
import { MasterKey } from '@walletd/core';
import { backOffWebhook, createTestDatabase, recordDeposit, seedWebhookCompany, type TestDatabase } from '@walletd/test-harness';
import { passBackedOff } from './backedOffDeliveries';

/**
 * Issue 43 §2: while its webhook is backed off a due delivery is not sent, but the turns of the
 * spec's schedule (5, 10, 20, 40 s) that fall within the back-off are used up, in one write; the
 * fifth ends it `failed`. A webhook that is not backed off is left to the claim.
 */
let t: TestDatabase;
const masterKey = new MasterKey(randomBytes(32));

beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t.drop();
});

async function hookWithDelivery(backedOffSeconds: number | null): Promise<number> {
  const c = await seedWebhookCompany(t.db, masterKey, 'http://127.0.0.1:9/hook');
  await recordDeposit(t.db, c.companyId, c.walletId);
  if (backedOffSeconds !== null) await backOffWebhook(t.db, c.hookId, backedOffSeconds);
  return c.hookId;
}

const delivery = (hookId: number) => t.db('webhook_deliveries').where({ webhook_id: hookId }).first();

it('uses up the turns within the back-off unsent, ends the fifth failed, and leaves a webhook not backed off alone', async () => {
  const twelve = await hookWithDelivery(12);
  const long = await hookWithDelivery(600);
  const open = await hookWithDelivery(null);
  expect(await passBackedOff(t.db, 5000)).toEqual({ passed: 2, failed: 1 });

  // 12 s: the turn now and the one at 5 s fall within it; the next is at 5 + 10 = 15 s.
  const d = await delivery(twelve);
  expect(d).toMatchObject({ status: 'pending', attempts: 2, leased: false, response_code: null });
  expect(d.last_error).toMatch(/^not sent: endpoint backed off until \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ after 5 failed attempts in a row$/);
  expect((d.next_attempt_at.getTime() - d.updated_at.getTime()) / 1000).toBe(15);
  // 10 minutes: the whole schedule (75 s) falls within it.
  expect(await delivery(long)).toMatchObject({ status: 'failed', attempts: 5, next_attempt_at: null });
  expect(await delivery(open)).toMatchObject({ status: 'pending', attempts: 0, last_error: null });
  // Not due again yet: nothing more is passed.
  expect(await passBackedOff(t.db, 5000)).toEqual({ passed: 0, failed: 0 });
});
