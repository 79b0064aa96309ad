import { randomBytes } from 'node:crypto';
import { MasterKey, createDb, createLogger } from '@walletd/core';
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
 * Issue 43 §5 (migration 048): a claim that took nothing because another claim held the only
 * webhook with due work says so (`capped`), and the dispatcher claims again within moments
 * instead of sleeping its whole poll interval with free slots (two dispatchers on one busy
 * webhook idled one of them 500 ms at each such collision).
 */
let t: TestDatabase;
let rx: TestReceiver;
let companyId: number;
let walletId: number;
let hookId: number;
const masterKey = new MasterKey(randomBytes(32));

beforeAll(async () => {
  t = await createTestDatabase();
  rx = await startReceiver();
  ({ companyId, walletId, hookId } = await seedWebhookCompany(t.db, masterKey, `${rx.url}/hook`));
});
afterAll(async () => {
  await rx.close();
  await t.drop();
});
beforeEach(async () => {
  await t.db('webhook_deliveries').del();
});

it('an empty claim says whether work was due on a webhook another claim holds', async () => {
  const nothing = await claimDue(t.db, 10, 60_000, 8);
  expect(nothing).toEqual([]);
  expect(nothing.capped).toBe(false);
  for (let i = 0; i < 3; i++) await recordDeposit(t.db, companyId, walletId);
  await t.db.transaction(async (trx) => {
    await trx.raw('select id from webhooks where id = ? for no key update', [hookId]);
    const skipped = await claimDue(t.db, 10, 60_000, 8);
    expect(skipped).toEqual([]);
    expect(skipped.capped).toBe(true);
  });
  const claimed = await claimDue(t.db, 10, 60_000, 8);
  expect(claimed).toHaveLength(3);
});

it('a dispatcher whose claim found the webhook held claims again without waiting for its poll', async () => {
  // Recorded before the dispatcher listens: no NOTIFY wakes it; only a claim can find them.
  for (let i = 0; i < 3; i++) await recordDeposit(t.db, companyId, walletId);
  // Calls of the claim function are counted (pg_stat_user_functions) on the dispatcher's connections.
  await t.db.raw(`do $$ begin execute format('alter database %I set track_functions = %L', current_database(), 'pl'); end $$`);
  const own = createDb({ url: t.url, poolMax: 2 });
  const dispatcher = createDispatcher({
    // A poll of 10 minutes: a dispatcher that waited for it would deliver nothing within this test.
    config: testConfig({ webhooks: { allowCidrs: ['127.0.0.0/8'], pollIntervalMs: 600_000 } }),
    logger: createLogger({ level: 'silent' }),
    db: own,
    masterKey,
    plugins: loadPlugins(),
  });
  const trx = await t.db.transaction();
  try {
    await trx.raw('select id from webhooks where id = ? for no key update', [hookId]);
    dispatcher.start();
    // Its claim ran while the row was held (a backend reports its calls within about 10 s when idle).
    const claimedOnce = await eventually(
      async () =>
        Number(
          (
            await t.db.raw(
              `select coalesce(sum(calls), 0)::int as n from pg_stat_user_functions where funcname = 'walletd_claim_deliveries'`,
            )
          ).rows[0].n,
        ),
      (n) => n > 0,
      30_000,
    );
    expect(claimedOnce).toBeGreaterThan(0);
    expect(Number((await t.db('webhook_deliveries').where({ status: 'delivered' }).count('* as n').first())?.n)).toBe(0);
  } finally {
    await trx.commit();
  }
  try {
    const delivered = await eventually(
      async () => Number((await t.db('webhook_deliveries').where({ status: 'delivered' }).count('* as n').first())?.n),
      (n) => n === 3,
      60_000,
    );
    expect(delivered).toBe(3);
  } finally {
    await dispatcher.stop();
    await own.destroy();
  }
}, 120_000);
