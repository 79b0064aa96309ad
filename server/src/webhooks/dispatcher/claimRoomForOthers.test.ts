import {
  call,
  createTestDatabase,
  recordDeposit,
  seedCompany,
  seedWatchedAddress,
  startTestApp,
  type TestApp,
  type TestDatabase,
} from '@walletd/test-harness';
import { claimDue } from './deliveryStore';

/**
 * Issue 43 §1 (migration 041): the claim keeps room for the receivers known to answer fast, and
 * does not wait for a webhook row another transaction holds (a claim of another dispatcher, the
 * breaker's update while attempts are recorded).
 */
let t: TestDatabase;
let app: TestApp;
let companyId: number;
let walletId: number;
const hooks: number[] = [];

beforeAll(async () => {
  t = await createTestDatabase();
  app = await startTestApp(t.db, { webhooks: { allowCidrs: ['127.0.0.0/8'] } });
  const s = await seedCompany(t.db);
  companyId = s.companyId;
  walletId = await seedWatchedAddress(t.db, companyId, '0x00000000000000000000000000000000000000cc');
  for (let i = 0; i < 4; i++) {
    const hook = await call(app.url, 'POST', '/v1/webhooks', {
      key: s.rootKey,
      body: { type: 'api', config: { url: `http://127.0.0.1:9/hook${i}` }, events: ['*'] },
    });
    hooks.push(hook.body.id);
  }
});
afterAll(async () => {
  await app.close();
  await t.drop();
});
beforeEach(async () => {
  await t.db('webhook_deliveries').del();
  for (let i = 0; i < 3; i++) await recordDeposit(t.db, companyId, walletId);
});

it('takes every due row of the fast receivers and only `otherRoom` rows of the others, saying more is due', async () => {
  const fast = hooks[0] as number;
  const claimed = await claimDue(t.db, 50, 60_000, 8, null, { ids: [fast], cap: 100, otherRoom: 2 });
  expect(claimed.filter((d) => d.webhookId === fast)).toHaveLength(3);
  expect(claimed.filter((d) => d.webhookId !== fast)).toHaveLength(2);
  expect(claimed.capped).toBe(true);
  // Without a limit every webhook's rows come, up to the per-webhook cap.
  const rest = await claimDue(t.db, 50, 60_000, 8, null, { ids: [fast], cap: 100, otherRoom: null });
  expect(rest).toHaveLength(4 * 3 - 5);
});

it('skips a webhook whose row another transaction holds instead of waiting for it', async () => {
  const held = hooks[1] as number;
  await t.db.transaction(async (trx) => {
    await trx.raw('select id from webhooks where id = ? for no key update', [held]);
    // Before 041 this claim waited for the transaction above, which waits for the claim: the test hung.
    const claimed = await claimDue(t.db, 50, 60_000, 8);
    expect(new Set(claimed.map((d) => d.webhookId))).toEqual(new Set(hooks.filter((h) => h !== held)));
  });
  const after = await claimDue(t.db, 50, 60_000, 8);
  expect(after.map((d) => d.webhookId)).toEqual([held, held, held]);
});
