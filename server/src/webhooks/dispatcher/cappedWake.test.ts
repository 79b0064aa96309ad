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
import { DestinationPolicy } from '../destinationPolicy';
import { createWebhook } from '../webhooks';
import { createDispatcher } from './dispatcher';

// The claims this test's dispatcher makes, counted in-process (the real claim runs).
const claims = { n: 0 };
jest.mock('./deliveryStore', () => {
  const actual = jest.requireActual('./deliveryStore');
  return {
    ...actual,
    claimDue: (...args: Parameters<typeof actual.claimDue>) => {
      claims.n++;
      return actual.claimDue(...args);
    },
  };
});

/**
 * Issue 43 §5 (isolation): while a dead receiver's probe holds its room of one, every claim answers
 * `capped`. The end of an attempt to a receiver known fast gives no capped webhook room (a fast
 * one's room is the hard bound), so it must not wake a claim: each healthy attempt's end and record
 * did, and half of all claims beside 10 dead receivers in the outbox bench took nothing.
 */
let t: TestDatabase;
let rx: TestReceiver;
let companyId: number;
let walletId: number;
let healthyId: number;
const masterKey = new MasterKey(randomBytes(32));

beforeAll(async () => {
  t = await createTestDatabase();
  rx = await startReceiver();
  const c = await seedWebhookCompany(t.db, masterKey, `${rx.url}/hook`);
  companyId = c.companyId;
  walletId = c.walletId;
  healthyId = c.hookId;
  const ctx = { companyId, keyId: 1, walletIds: null } as never;
  await createWebhook({ db: t.db, masterKey, policy: new DestinationPolicy(['127.0.0.0/8']) }, ctx, {
    type: 'api',
    config: { url: 'http://127.0.0.1:9/dead' },
    events: ['*'],
  });
});
afterAll(async () => {
  await rx.close();
  await t.drop();
});

const delivered = async () =>
  Number((await t.db('webhook_deliveries').where({ webhook_id: healthyId, status: 'delivered' }).count('* as n').first())?.n);

it("a fast receiver's finished attempt does not wake a claim while a dead receiver's probe holds its room", async () => {
  for (let i = 0; i < 2; i++) await recordDeposit(t.db, companyId, walletId);
  // The dead webhook is probing: failing (a room of one), one attempt in flight (another
  // dispatcher's lease), one delivery due behind it. Every claim answers `capped`.
  await t.db.raw(`update webhooks set consecutive_failures = 1 where company_id = ? and id <> ?`, [companyId, healthyId]);
  await t.db.raw(
    `update webhook_deliveries set leased = true, next_attempt_at = now() + interval '1 hour'
     where id = (select min(id) from webhook_deliveries where webhook_id <> ?)`,
    [healthyId],
  );
  const own = createDb({ url: t.url, poolMax: 3 });
  const dispatcher = createDispatcher({
    // A poll of 10 minutes: only a NOTIFY or a finished attempt wakes a claim within this test.
    config: testConfig({ webhooks: { allowCidrs: ['127.0.0.0/8'], pollIntervalMs: 600_000 } }),
    logger: createLogger({ level: 'silent' }),
    db: own,
    masterKey,
    plugins: loadPlugins(),
  });
  dispatcher.start();
  try {
    // The healthy receiver answers these two: it is known fast from then on.
    expect(await eventually(delivered, (n) => n === 2, 30_000)).toBe(2);
    await recordDeposit(t.db, companyId, walletId);
    expect(await eventually(delivered, (n) => n === 3, 30_000)).toBe(3);
    // From here one event, one claim: its NOTIFY's. The end and record of its attempt to the fast
    // receiver free no room the claim said was used up (before: a claim at each, then more as the
    // `capped` empty claims paused 2, 4, 8… ms).
    const before = claims.n;
    await recordDeposit(t.db, companyId, walletId);
    expect(await eventually(delivered, (n) => n === 4, 30_000)).toBe(4);
    // Settle: a claim woken by the record runs within milliseconds of it.
    await new Promise((r) => setTimeout(r, 500));
    expect(claims.n - before).toBe(1);
  } finally {
    await dispatcher.stop();
    await own.destroy();
  }
}, 120_000);
